// web_search's own network grant (src/sandbox/grants/tool_grants.ts) in real workers: its worker
// reaches the configured engine without --allow-net and holds nothing else; the grant never
// reaches another tool (download_url cannot fetch the engine's host) nor a plugin that calls
// itself web_search.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { discoverPlugins } from "../../../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";
import { createToolHost } from "../../../src/sandbox/workers/tool_host.ts";
import { loadToolCatalog } from "../../../src/sandbox/workers/tool_catalog.ts";
import { grantFor } from "../../../src/sandbox/grants/tool_grants.ts";
import { webSearchGrants } from "../../../src/app/web_search_setup.ts";
import { startFakeSearxng } from "../../helpers/fake_searxng.ts";

async function builtinsWith(flags: string[], engine: string) {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_grants_" }));
  const grants = parseGrantFlags(flags, { cwd: workspace });
  if (!grants.ok) throw new Error(JSON.stringify(grants.error));
  const { files } = await discoverPlugins({ userDir: null, cwd: workspace });
  return {
    workspace,
    options: {
      grants: grants.value.grants,
      workspace,
      dataDir: join(workspace, ".harness"),
      pluginFiles: files,
      toolGrants: webSearchGrants(engine)!,
    },
  };
}

Deno.test("web_search's worker holds exactly the engine's host; download_url's does not get it", async () => {
  await using searxng = startFakeSearxng({ results: 3 });
  const other = "127.0.0.1:9";
  const { workspace, options } = await builtinsWith([`--allow-net=${other}`], searxng.url);
  try {
    const catalog = await loadToolCatalog(options);
    const groupOf = (name: string) =>
      catalog.groups.find((group) => group.plugins.some((plugin) => plugin.name === name))!;
    const search = groupOf("web_search");
    assertEquals(search.plugins.map((plugin) => plugin.name), ["web_search"]);
    assertEquals(search.effective.permissions, {
      read: false,
      write: false,
      net: [`127.0.0.1:${searxng.port}`],
      run: false,
      env: false,
      sys: false,
      ffi: false,
      import: false,
    });
    assertEquals(search.config, { web_search: { engine: searxng.url } });
    const download = groupOf("download_url");
    assertEquals(download.effective.permissions.net, [other]);
    assertEquals(download.config, undefined);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("web_search searches without --allow-net; download_url may not reach the engine", async () => {
  await using searxng = startFakeSearxng({ results: 3 });
  const { workspace, options } = await builtinsWith([], searxng.url);
  const { host, errors } = await createToolHost(options);
  try {
    assertEquals(errors, []);
    const searched = await host.run("web_search", { query: "sandbox" }, { state: {} });
    assertEquals(searched.result.error_type, "none", searched.result.error_message ?? "");
    assert(searched.result.data?.includes('3 results for "sandbox"'));
    const fetched = await host.run("download_url", { url: `${searxng.url}/search?q=x` }, {
      state: {},
    });
    assertEquals(fetched.result.error_type, "permission_denied");
    assertEquals(searxng.requests.length, 1);
  } finally {
    await host.close();
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("grantFor() gives a grant to the built-in tool only, and keeps an all-hosts grant", () => {
  const parsed = parseGrantFlags(["--allow-net"], { cwd: "/w" });
  if (!parsed.ok) throw new Error();
  const engine = webSearchGrants("https://search.example.org/?q={query}");
  assertEquals(engine?.web_search?.net, ["search.example.org"]);
  assertEquals(
    grantFor(parsed.value.grants, engine, { name: "web_search", builtin: false }),
    undefined,
  );
  assertEquals(
    grantFor(parsed.value.grants, engine, { name: "read_file", builtin: true }),
    undefined,
  );
  const own = grantFor(parsed.value.grants, engine, { name: "web_search", builtin: true });
  assertEquals(own?.grants.allow.net, true);
  assertEquals(own?.declared, { net: ["search.example.org"] });
});
