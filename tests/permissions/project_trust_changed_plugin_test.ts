// Attack: a project plugin (or a helper it imports) is rewritten after the user trusted it,
// for example by the model during the session. The tool host must not run the new code: it
// checks the trust store when it lists the plugin and again right before each import.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { markTrusted } from "../../src/permissions/project_trust.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { createToolHost } from "../../src/sandbox/workers/tool_host.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const silent = { readLine: () => Promise.resolve(null), write: () => {} };

const PLUGIN = `import { answer } from "./_helper.js";
export default ({ z, defineTool }) => defineTool({
  name: "greet",
  description: "Says hello.",
  risk: "safe",
  parameters: z.object({}),
  run: () => ({ output: answer() }),
});
`;

async function project(dir: string) {
  const workspace = await Deno.realPath(dir);
  const plugins = join(workspace, "plugins");
  await Deno.mkdir(plugins);
  const plugin = join(plugins, "greet.js");
  const helper = join(plugins, "_helper.js");
  await Deno.writeTextFile(plugin, PLUGIN);
  await Deno.writeTextFile(helper, 'export const answer = () => "hello";\n');
  const storeFile = join(workspace, "trusted_plugins.json");
  await markTrusted(plugin, { io: silent, storeFile, workspace });
  const parsed = parseGrantFlags([`--allow-read=${workspace}`], { cwd: workspace });
  if (!parsed.ok) throw new Error("bad flags");
  const open = () =>
    createToolHost({
      grants: parsed.value.grants,
      workspace,
      dataDir: join(workspace, ".harness"),
      pluginFiles: [{
        path: plugin,
        url: pathToFileURL(plugin).href,
        origin: "project",
        name: "greet",
      }],
      trustStoreFile: storeFile,
      abortGraceMs: 200,
    });
  return { plugin, helper, open };
}

Deno.test("a trusted project plugin runs; one changed before listing is not loaded", async () => {
  await using dir = await tempDir();
  const p = await project(dir.path);
  {
    const { host, errors } = await p.open();
    assertEquals(errors, []);
    assertEquals((await host.run("greet", {}, { state: {} })).result.data, "hello");
    await host.close();
  }
  await Deno.writeTextFile(p.helper, 'export const answer = () => "pwned";\n');
  const { host, errors } = await p.open();
  assertEquals(errors.length, 1);
  assert(
    errors[0]?.kind === "plugin_invalid" && /changed since you trusted it/.test(errors[0].reason),
    JSON.stringify(errors),
  );
  assertEquals(host.list().map((t) => t.name), []);
  await host.close();
});

for (const target of ["plugin", "helper"] as const) {
  Deno.test(`a project ${target} rewritten during the session does not run`, async () => {
    await using dir = await tempDir();
    const p = await project(dir.path);
    const { host, errors } = await p.open();
    assertEquals(errors, []);
    // Listed as trusted; rewritten before its first call (its worker imports it then).
    if (target === "plugin") {
      await Deno.writeTextFile(p.plugin, PLUGIN.replace("answer()", '"pwned"'));
    } else await Deno.writeTextFile(p.helper, 'export const answer = () => "pwned";\n');
    const run = await host.run("greet", {}, { state: {} });
    await host.close();
    assertEquals(run.result.success, false);
    assert(
      /changed after harness checked it/.test(run.result.error_message ?? ""),
      run.result.error_message ?? "",
    );
  });
}
