// grep_search through the real ToolHost, where it gets search helper Workers (one per spare
// core): the same answer as the tool run on one core, and a file --deny-read names inside
// the workspace is refused whichever thread meets it.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import grepSearch from "../../plugins/grep_search.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { discoverPlugins } from "../../src/plugins/load_plugins.ts";
import { helperCount } from "../../src/sandbox/search_helpers.ts";
import { createToolHost, type ToolHost } from "../../src/sandbox/tool_host.ts";
import { buildSearchTree } from "../helpers/search_tree.ts";
import { makeToolContext } from "../helpers/tool_context.ts";

const BUILTIN = fileURLToPath(new URL("../../plugins/", import.meta.url));

async function hostFor(workspace: string, flags: string[]): Promise<ToolHost> {
  const parsed = parseGrantFlags(flags, { cwd: workspace });
  if (!parsed.ok) throw new Error("bad flags");
  const { files } = await discoverPlugins({
    builtinDir: BUILTIN,
    userDir: null,
    cwd: workspace,
    pluginDirs: [],
  });
  const { host } = await createToolHost({
    grants: parsed.value.grants,
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: files,
  });
  return host;
}

async function grep(host: ToolHost, args: Record<string, unknown>) {
  const valid = await host.validate("grep_search", args);
  if (!valid.ok) throw new Error(valid.error.join("; "));
  return (await host.run("grep_search", valid.value, { state: {} })).result;
}

Deno.test("grep_search through the ToolHost answers as the tool does on one core", async () => {
  assert(helperCount() > 0, "this test needs two cores to start a search helper");
  await using ctx = await makeToolContext();
  await buildSearchTree(ctx.workspace, 600);
  const host = await hostFor(ctx.workspace, [`--allow-read=${ctx.workspace}`]);
  try {
    for (
      const args of [
        { pattern: "needle", max_results: 200 },
        { pattern: "needle", max_results: 3 },
        { pattern: "deprecated*since", max_results: 50, file_filter: "*.md" },
        { pattern: "zzz_absent", max_results: 10 },
      ]
    ) {
      const full = grepSearch.parameters.parse(args);
      const alone = await grepSearch.run(full, ctx); // no helpers in this context
      const result = await grep(host, args);
      assertEquals(result.error_type, "none", result.error_message ?? "");
      assertEquals(
        result.data,
        typeof alone === "string" ? alone : alone.output,
        JSON.stringify(args),
      );
    }
  } finally {
    await host.close();
  }
});

Deno.test("grep_search through the ToolHost refuses a --deny-read file inside the workspace", async () => {
  await using ctx = await makeToolContext();
  await buildSearchTree(ctx.workspace, 600);
  // Late in the walk, so a helper is likely to be the one that meets it.
  const secret = join(ctx.workspace, "src", "nested", "deeper", "zz_secret.txt");
  await Deno.writeTextFile(secret, "needle: the secret\n");
  const host = await hostFor(ctx.workspace, [
    `--allow-read=${ctx.workspace}`,
    `--deny-read=${secret}`,
  ]);
  try {
    for (let i = 0; i < 3; i++) {
      const result = await grep(host, { pattern: "the secret" });
      assertEquals(result.error_type, "permission_denied");
      assert(!JSON.stringify(result).includes("needle: the secret"));
      assert(result.error_message?.includes("denied by --deny-read"), result.error_message ?? "");
    }
  } finally {
    await host.close();
  }
});
