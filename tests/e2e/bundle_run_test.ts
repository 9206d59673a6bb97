// The bundled run (bundle_entry.ts, scripts/build_bundle.ts) does what the source does: the same
// -p answer and tool results, and the same sandbox. Its tool worker holds its own copy of
// harness's modules, while a user's plugin still imports the source files: the deny guard's
// read check for node:fs readers (src/platform/read_check.ts) must reach both copies.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { printRunFiles, staticClosure } from "../helpers/bundle_files.ts";

const ROOT = new URL("../../", import.meta.url);
const SOURCE = { HARNESS_BUNDLE: "0", HARNESS_TRACE_STARTUP: "1" };
const BUNDLED = { HARNESS_TRACE_STARTUP: "1" };

/** Builds this checkout's bundle unless it is fresh. */
async function freshBundle(): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", fileURLToPath(new URL("scripts/build_bundle.ts", ROOT)), "--if-stale"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
}

/** Whether harness ran its bundle, from its start-up trace. */
function ranBundle(stderr: string): boolean {
  return /^startup .* bundle checked$/m.test(stderr);
}

/** A user plugin that reads a file with harness's own node:fs reader (grep_search's). */
function peekPlugin(): string {
  const reader = new URL("src/tools/search/file_reader.ts", ROOT).href;
  return `import { FileReader } from ${JSON.stringify(reader)};
export default ({ z, defineTool }) =>
  defineTool({
    name: "peek",
    description: "Print a file read with harness's file reader.",
    risk: "safe",
    permissions: { read: ["."] },
    parameters: z.object({ path: z.string() }),
    run: ({ path }, ctx) => {
      try {
        return { output: new TextDecoder().decode(new FileReader().read(ctx.resolve(path))) };
      } catch (error) {
        return { output: "refused: " + error.name };
      }
    },
  });
`;
}

async function withPeek(sandbox: CliSandbox): Promise<void> {
  const plugins = join(sandbox.home, ".config", "harness", "plugins");
  await Deno.mkdir(plugins, { recursive: true });
  await Deno.writeTextFile(join(plugins, "peek.ts"), peekPlugin());
  await Deno.writeTextFile(join(sandbox.cwd, ".env"), "API_KEY=env-secret\n");
  await Deno.writeTextFile(join(sandbox.cwd, "notes.txt"), "plain notes\n");
  // Another name of the denied file: Deno's read grant allows it, the gate knows the file.
  await Deno.link(join(sandbox.cwd, ".env"), join(sandbox.cwd, "env_link"));
}

Deno.test("a plugin reading with harness's file reader meets --deny-read, bundled and from source", async () => {
  await freshBundle();
  await using sandbox = await cliSandbox();
  await withPeek(sandbox);
  for (const env of [BUNDLED, SOURCE]) {
    const args = ["--allow-read=.", "--deny-read=.env", "tool", "peek"];
    for (const path of [".env", "env_link"]) {
      const denied = await sandbox.run([...args, JSON.stringify({ path })], { env });
      assertEquals(ranBundle(denied.stderr), env === BUNDLED, denied.stderr);
      const mode = `${env === BUNDLED ? "bundled" : "source"}, ${path}`;
      assert(!denied.stdout.includes("env-secret"), `${mode}: ${denied.stdout}`);
      assert(denied.stdout.includes("refused: NotCapable"), denied.stdout + denied.stderr);
    }
    const allowed = await sandbox.run([...args, '{"path": "notes.txt"}'], { env });
    assert(allowed.stdout.includes("plain notes"), allowed.stdout + allowed.stderr);
  }
});

Deno.test("a -p run with tool calls answers the same bundled and from source", async () => {
  await freshBundle();
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(join(sandbox.cwd, "a.txt"), "alpha\nbeta\n");
  const script = () => [
    reply().toolCall("read_file", { path: "a.txt" }),
    // The syntax check loads tree-sitter (a package the bundle leaves to Deno) on this edit.
    reply().toolCall("edit_file", { path: "b.py", old_string: "x = 1", new_string: "def g(:" }),
    reply().toolCall("grep_search", { pattern: "beta" }),
    reply().toolCall("get_working_directory", {}),
    reply().text("done"),
  ];
  const runs: { stdout: string; requests: unknown[] }[] = [];
  for (const env of [BUNDLED, SOURCE]) {
    await Deno.writeTextFile(join(sandbox.cwd, "b.py"), "x = 1\n");
    await using server = startFakeLlmServer(script());
    const out = await sandbox.run([
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--allow-read=.",
      "--allow-write=.",
      "--yes",
      "--no-session",
      "-p",
      "read a.txt",
      "--output-format",
      "json",
    ], { env });
    assertEquals(out.code, 0, out.stderr);
    assertEquals(ranBundle(out.stderr), env === BUNDLED, out.stderr);
    runs.push({ stdout: out.stdout, requests: server.requests });
  }
  const [bundled, source] = runs.map(({ stdout, requests }) => {
    const result = lastJsonLine(stdout) as { tool_calls: { result: Record<string, unknown> }[] };
    // Times and call ids differ from run to run; everything else is the same.
    const calls = result.tool_calls.map(({ result }) => ({ ...result, metadata: undefined }));
    const sent = JSON.stringify(requests)
      .replace(/(execution_time_ms|timestamp)\\":[\d.]+/g, "$1")
      .replace(/call_[A-Za-z0-9]{24}/g, "call");
    return { calls, requests: sent };
  });
  assertEquals(bundled!.calls, source!.calls);
  assert(JSON.stringify(bundled!.calls).includes("beta"), JSON.stringify(bundled!.calls));
  assert(/b\.py:1:\d+: error: missing/.test(bundled!.requests), "no problem reported");
  assertEquals(bundled!.requests, source!.requests);
});

Deno.test("the run's bundle files name no package's package.json for deno compile", async () => {
  // A static import of "PKG/package.json" (src/code_index/grammar_assets.ts keeps one for
  // `deno compile`) makes Deno set up its npm resolution when the chunk loads: some 2.5 ms of
  // every -p run, which never reads a grammar. The tool worker's files are built apart.
  await freshBundle();
  const manifest = JSON.parse(await Deno.readTextFile(new URL(".bundle/current.json", ROOT)));
  const folder = new URL(`.bundle/${manifest.folder}/`, ROOT);
  const lazy = [...Deno.readDirSync(folder)].map((entry) => entry.name)
    .filter((name) => !name.startsWith("chunk-") && !name.startsWith("tool_worker"));
  const run = staticClosure(folder, ["run.js", ...lazy]);
  const named = [...run.keys()].filter((name) =>
    /^import (["'])[^".'][^"']*\/package\.json\1 with/m.test(
      Deno.readTextFileSync(new URL(name, folder)),
    )
  );
  assertEquals(named, []);
});

Deno.test("a -p run loads the bundle's merged chunks, not one per set of shared modules", async () => {
  // Deno spends about 60 us on each module it loads: Deno's bundler alone split the modules of
  // a -p run into 91 files, the build's merge (scripts/build_bundle.ts) leaves about 35.
  await freshBundle();
  const manifest = JSON.parse(await Deno.readTextFile(new URL(".bundle/current.json", ROOT)));
  const loaded = printRunFiles(new URL(`.bundle/${manifest.folder}/`, ROOT));
  assert(loaded !== undefined, "no chunk of the conversation's modules");
  const bytes = [...loaded.values()].reduce((sum, size) => sum + size, 0);
  assert(loaded.size <= 45, `${loaded.size} files, ${bytes} bytes: ${[...loaded.keys()]}`);
  assert(bytes < 1_000_000, `${loaded.size} files, ${bytes} bytes`);
});
