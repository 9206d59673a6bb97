import { join } from "node:path";
import { checkProjectTrust, type TrustIO } from "../../src/permissions/project_trust.ts";
import { tempDir } from "../helpers/temp_dir.ts";

function scriptedIO(answers: (string | null)[]): TrustIO & { output: string; asked: number } {
  const io = {
    output: "",
    asked: 0,
    readLine(prompt: string) {
      io.asked++;
      io.output += prompt;
      return Promise.resolve(answers.length > 0 ? answers.shift()! : null);
    },
    write(text: string) {
      io.output += text;
    },
  };
  return io;
}

async function setup(dir: string): Promise<{ a: string; b: string; store: string }> {
  await Deno.mkdir(join(dir, "plugins"));
  const a = join(dir, "plugins", "a.ts");
  const b = join(dir, "plugins", "b.ts");
  await Deno.writeTextFile(a, "export default { name: 'a' };\n");
  await Deno.writeTextFile(b, "export default { name: 'b' };\n");
  return { a, b, store: join(dir, "config", "trusted_plugins.json") };
}

Deno.test("checkProjectTrust() lists new plugins with short hashes and remembers a yes", async () => {
  await using dir = await tempDir();
  const { a, b, store } = await setup(dir.path);
  const io = scriptedIO(["y"]);
  const first = await checkProjectTrust([a, b], {
    io,
    interactive: true,
    storeFile: store,
    cwd: dir.path,
  });
  if (first.load.length !== 2 || io.asked !== 1) throw new Error(JSON.stringify(first));
  if (!/plugins\/a\.ts {2}sha256 [0-9a-f]{12} {2}\(new\)/.test(io.output)) {
    throw new Error(io.output);
  }
  const again = scriptedIO([]);
  const second = await checkProjectTrust([a, b], {
    io: again,
    interactive: true,
    storeFile: store,
    cwd: dir.path,
  });
  if (second.load.length !== 2 || again.asked !== 0) throw new Error("asked again");
});

Deno.test("checkProjectTrust() re-asks after a plugin changes", async () => {
  await using dir = await tempDir();
  const { a, b, store } = await setup(dir.path);
  const cwd = dir.path;
  await checkProjectTrust([a, b], {
    io: scriptedIO(["yes"]),
    interactive: true,
    storeFile: store,
    cwd,
  });
  await Deno.writeTextFile(a, "export default { name: 'a', changed: true };\n");
  const io = scriptedIO(["n"]);
  const result = await checkProjectTrust([a, b], {
    io,
    interactive: true,
    storeFile: store,
    cwd: dir.path,
  });
  if (io.asked !== 1 || !io.output.includes("(changed)") || io.output.includes("b.ts")) {
    throw new Error(io.output);
  }
  if (result.load.join() !== b || result.skipped.join() !== a) {
    throw new Error(JSON.stringify(result));
  }
  // The "no" is remembered for that version: skipped with a note, not asked again.
  const later = scriptedIO([]);
  const third = await checkProjectTrust([a, b], {
    io: later,
    interactive: true,
    storeFile: store,
    cwd,
  });
  if (later.asked !== 0 || third.skipped.join() !== a || !later.output.includes("declined")) {
    throw new Error(later.output);
  }
  // Going back to the version trusted before is asked about again: only the latest decision
  // about a file is kept (issue 26, item 8: no stale hashes).
  await Deno.writeTextFile(a, "export default { name: 'a' };\n");
  const backIO = scriptedIO([]);
  const back = await checkProjectTrust([a], {
    io: backIO,
    interactive: true,
    storeFile: store,
    cwd,
  });
  if (back.load.length !== 0 || backIO.asked !== 1) throw new Error(JSON.stringify(back));
});

Deno.test("checkProjectTrust() skips untrusted plugins in non-interactive mode with a warning", async () => {
  await using dir = await tempDir();
  const { a, b, store } = await setup(dir.path);
  const io = scriptedIO([]);
  const result = await checkProjectTrust([a, b], {
    io,
    interactive: false,
    storeFile: store,
    cwd: dir.path,
  });
  if (result.load.length !== 0 || result.skipped.length !== 2 || io.asked !== 0) {
    throw new Error(JSON.stringify(result));
  }
  if (!io.output.includes("without -p and answer the trust prompt")) throw new Error(io.output);
  await Deno.stat(store).then(() => {
    throw new Error("non-interactive mode must not record an answer");
  }, () => {});
});

Deno.test("checkProjectTrust() treats end of input as no and a damaged store as empty", async () => {
  await using dir = await tempDir();
  const { a, store } = await setup(dir.path);
  await Deno.mkdir(join(dir.path, "config"));
  await Deno.writeTextFile(store, "{ not json");
  const io = scriptedIO([null]);
  const result = await checkProjectTrust([a], { io, interactive: true, storeFile: store });
  if (result.load.length !== 0 || !io.output.includes("Ignoring trust store")) {
    throw new Error(io.output);
  }
});

Deno.test("checkProjectTrust() does nothing without project plugins", async () => {
  const io = scriptedIO([]);
  const result = await checkProjectTrust([], {
    io,
    interactive: true,
    storeFile: "/nonexistent/x.json",
  });
  if (result.load.length !== 0 || io.output !== "") throw new Error(io.output);
});

Deno.test("checkProjectTrust() re-asks after a file the plugin imports changes", async () => {
  await using dir = await tempDir();
  const { store } = await setup(dir.path);
  const plugin = join(dir.path, "plugins", "c.ts");
  const helper = join(dir.path, "plugins", "_helper.ts");
  await Deno.writeTextFile(helper, "export const run = () => 'safe';\n");
  await Deno.writeTextFile(
    plugin,
    '// import "./_decoy.ts";\nimport { run } from "./_helper.ts";\nexport default { run };\n',
  );
  const first = await checkProjectTrust([plugin], {
    io: scriptedIO(["y"]),
    interactive: true,
    storeFile: store,
  });
  if (first.load.join() !== plugin) throw new Error(JSON.stringify(first));
  await Deno.writeTextFile(helper, "export const run = () => Deno.exit(66);\n");
  const io = scriptedIO([]);
  const result = await checkProjectTrust([plugin], {
    io,
    interactive: false,
    storeFile: store,
    cwd: dir.path,
  });
  if (result.load.length !== 0 || !io.output.includes("plugins/c.ts")) {
    throw new Error(`${JSON.stringify(result)}\n${io.output}`);
  }
  // A comment naming a file is not an import: editing it changes nothing.
  await Deno.writeTextFile(helper, "export const run = () => 'safe';\n");
  await Deno.writeTextFile(join(dir.path, "plugins", "_decoy.ts"), "anything");
  const back = await checkProjectTrust([plugin], {
    io: scriptedIO([]),
    interactive: false,
    storeFile: store,
  });
  if (back.load.join() !== plugin) throw new Error(JSON.stringify(back));
});

Deno.test("checkProjectTrust() never remembers a mistyped answer as 'never ask again'", async () => {
  await using dir = await tempDir();
  const { a, store } = await setup(dir.path);
  for (const typo of ["t", "", "yess", null]) {
    const io = scriptedIO([typo]);
    const r = await checkProjectTrust([a], { io, interactive: true, storeFile: store });
    if (r.load.length !== 0 || !io.output.includes("you will be asked again")) {
      throw new Error(`${JSON.stringify(typo)}: ${io.output}`);
    }
  }
  // Still asked: and a clear yes then loads it.
  const io = scriptedIO(["y"]);
  const r = await checkProjectTrust([a], { io, interactive: true, storeFile: store });
  if (r.load.length !== 1 || io.asked !== 1) throw new Error(io.output);
});

Deno.test("checkProjectTrust() takes one key when the I/O offers it", async () => {
  await using dir = await tempDir();
  const { a, store } = await setup(dir.path);
  const prompts: string[] = [];
  const io: TrustIO = {
    readLine: () => Promise.reject(new Error("a line was asked for")),
    readKey: (prompt) => {
      prompts.push(prompt);
      return Promise.resolve("y");
    },
    write: () => {},
  };
  const r = await checkProjectTrust([a], { io, interactive: true, storeFile: store });
  if (r.load.length !== 1 || prompts[0] !== "Trust and load them? [y/n] ") {
    throw new Error(JSON.stringify(prompts));
  }
});
