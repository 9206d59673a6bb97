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

Deno.test("grep_search, glob and get_file_tree skip --deny-read files and folders inside the workspace", async () => {
  await using ctx = await makeToolContext();
  await buildSearchTree(ctx.workspace, 600);
  // Late in the walk, so a helper is likely to be the one that meets it.
  const secret = join(ctx.workspace, "src", "nested", "deeper", "zz_secret.txt");
  await Deno.writeTextFile(secret, "needle: the secret\n");
  const vault = join(ctx.workspace, "pkg", "vault");
  await Deno.mkdir(vault);
  await Deno.writeTextFile(join(vault, "key.txt"), "needle: the vault key\n");
  const host = await hostFor(ctx.workspace, [
    `--allow-read=${ctx.workspace}`,
    `--deny-read=${secret}`,
    `--deny-read=${vault}`,
  ]);
  const run = async (name: string, args: Record<string, unknown>) => {
    const valid = await host.validate(name, args);
    if (!valid.ok) throw new Error(valid.error.join("; "));
    return (await host.run(name, valid.value, { state: {} })).result;
  };
  try {
    // The third pattern matches nothing: the secret is skipped before it is opened.
    for (const pattern of ["the secret", "vault key", "zzz_absent"]) {
      const result = await grep(host, { pattern });
      assertEquals(result.error_type, "none", result.error_message ?? "");
      assert(!result.data!.includes("needle: the"), result.data!);
      assert(
        result.data!.includes(
          "[Skipped, the sandbox denies reading them: pkg/vault/, src/nested/deeper/zz_secret.txt]",
        ),
        result.data!,
      );
    }
    const globbed = await run("glob", { pattern: "**/*.txt" });
    assertEquals(globbed.error_type, "none", globbed.error_message ?? "");
    assert(!globbed.data!.includes("key.txt"), globbed.data!);
    assert(globbed.data!.endsWith("[Skipped, the sandbox denies reading them: pkg/vault/]"));
    const tree = await run("get_file_tree", {});
    assertEquals(tree.error_type, "none", tree.error_message ?? "");
    assert(!tree.data!.includes("key.txt"), tree.data!);
    assert(tree.data!.includes("[Skipped, the sandbox denies reading them: pkg/vault/]"));
  } finally {
    await host.close();
  }
});
