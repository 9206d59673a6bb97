// Attack through the tool host (issue 26, item 3, trust half): after harness listed the
// plugins, the model rewrites one in the user folder, a --plugins folder or (harness run from
// its own source) the built-in folder, or makes it import a new file. The host pinned every
// such file by hash and the worker checks the pins right before each import, so the new code
// does not run in this session. End to end through -p: tests/e2e/plugin_rewrite_attack_test.ts.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";
import type { PluginOrigin } from "../../../src/plugin_loader/load_plugins.ts";
import { createToolHost } from "../../../src/sandbox/workers/tool_host.ts";
import { tempDir } from "../../helpers/temp_dir.ts";

const PLUGIN = (word: string, extra = "") =>
  `${extra}
export default ({ z, defineTool }) => defineTool({
  name: "greet",
  description: "Says a word.",
  risk: "safe",
  parameters: z.object({}),
  run: () => ({ output: "${word}" }),
});
`;

async function hostFor(workspace: string, origin: PluginOrigin) {
  const folder = join(workspace, "tools");
  await Deno.mkdir(folder, { recursive: true });
  const plugin = join(folder, "greet.js");
  await Deno.writeTextFile(plugin, PLUGIN("hello"));
  // The write grant covers the plugin folder: the model can rewrite it.
  const parsed = parseGrantFlags([`--allow-read=${workspace}`, `--allow-write=${workspace}`], {
    cwd: workspace,
  });
  if (!parsed.ok) throw new Error("bad flags");
  const { host, errors } = await createToolHost({
    grants: parsed.value.grants,
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: [{ path: plugin, url: pathToFileURL(plugin).href, origin, name: "greet" }],
    abortGraceMs: 200,
  });
  assertEquals(errors, []);
  return { host, plugin, folder };
}

for (const origin of ["user", "flag", "builtin"] as const) {
  Deno.test(`a ${origin} plugin rewritten after listing does not run in the session`, async () => {
    await using dir = await tempDir();
    const workspace = await Deno.realPath(dir.path);
    const { host, plugin } = await hostFor(workspace, origin);
    try {
      await Deno.writeTextFile(plugin, PLUGIN("pwned"));
      const run = await host.run("greet", {}, { state: {} });
      assertEquals(run.result.success, false);
      assert(
        /greet\.js" changed after harness checked it/.test(run.result.error_message ?? ""),
        String(run.result.error_message),
      );
    } finally {
      await host.close();
    }
  });
}

Deno.test("a plugin made to import a new file after listing does not run", async () => {
  await using dir = await tempDir();
  const workspace = await Deno.realPath(dir.path);
  const { host, plugin, folder } = await hostFor(workspace, "flag");
  try {
    await Deno.writeTextFile(join(folder, "_evil.js"), "export const x = 1;\n");
    // The plugin's own text changes too; a rewritten helper alone is the e2e test's case.
    await Deno.writeTextFile(plugin, PLUGIN("hello", 'import "./_evil.js";'));
    const run = await host.run("greet", {}, { state: {} });
    assertEquals(run.result.success, false);
    assert(
      /changed after harness checked it|did not when harness/.test(run.result.error_message ?? ""),
    );
  } finally {
    await host.close();
  }
});

Deno.test("an unchanged plugin in a write grant still runs", async () => {
  await using dir = await tempDir();
  const workspace = await Deno.realPath(dir.path);
  const { host } = await hostFor(workspace, "user");
  try {
    assertEquals((await host.run("greet", {}, { state: {} })).result.data, "hello");
  } finally {
    await host.close();
  }
});
