import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { builtinPluginDir, discoverPlugins } from "../../src/plugin_loader/load_plugins.ts";
import { userPluginDir } from "../../src/config/folders.ts";

async function tempTree(files: string[]): Promise<string & AsyncDisposable> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_plugins_" }));
  for (const file of files) {
    await Deno.mkdir(join(root, file, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, file), "export default {};\n");
  }
  return Object.assign(Object(root) as string, {
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  });
}

Deno.test("discoverPlugins() lists folders in precedence order with sorted names", async () => {
  await using root = await tempTree([
    "builtin/read_file.ts",
    "builtin/grep.ts",
    "config/harness/plugins/mine.js",
    "project/plugins/b.ts",
    "project/plugins/a.ts",
    "project/plugins/notes.md",
    "project/plugins/types.d.ts",
    "project/plugins/_shared.ts",
    "extra/z.ts",
  ]);
  const r = String(root);
  const { files, errors } = await discoverPlugins({
    builtinDir: join(r, "builtin"),
    env: { XDG_CONFIG_HOME: join(r, "config") },
    cwd: join(r, "project"),
    pluginDirs: ["../extra", join(r, "missing")],
  });
  assertEquals(errors, []);
  assertEquals(files.map((f) => `${f.origin}:${f.name}`), [
    "builtin:grep",
    "builtin:read_file",
    "user:mine",
    "project:a",
    "project:b",
    "flag:z",
  ]);
  assertEquals(files[2]?.path, join(r, "config/harness/plugins/mine.js"));
  assertEquals(files[2]?.url, pathToFileURL(join(r, "config/harness/plugins/mine.js")).href);
});

Deno.test("discoverPlugins() lists a folder reached twice once", async () => {
  await using root = await tempTree(["plugins/a.ts"]);
  const r = String(root);
  const { files } = await discoverPlugins({
    builtinDir: join(r, "plugins"),
    userDir: null,
    cwd: r,
    pluginDirs: ["plugins"],
  });
  assertEquals(files.map((f) => f.origin), ["builtin"]);
});

Deno.test("discoverPlugins() reports an unreadable folder", async () => {
  await using root = await tempTree(["notadir"]);
  const r = String(root);
  const { files, errors } = await discoverPlugins({
    builtinDir: null,
    userDir: null,
    cwd: r,
    pluginDirs: [join(r, "notadir")],
  });
  assertEquals(files, []);
  assertEquals(errors.length, 1);
  assert(errors[0]?.kind === "plugin_invalid" && errors[0].reason.startsWith("cannot read"));
});

Deno.test("userPluginDir() respects XDG_CONFIG_HOME and falls back to ~/.config", () => {
  assertEquals(userPluginDir({ XDG_CONFIG_HOME: "/x" }), "/x/harness/plugins");
  assertEquals(userPluginDir({ HOME: "/home/u" }), "/home/u/.config/harness/plugins");
  assertEquals(userPluginDir({}), undefined);
});

Deno.test("builtinPluginDir() is the repository's plugins folder", () => {
  assertEquals(builtinPluginDir(), join(import.meta.dirname!, "../../plugins/"));
});
