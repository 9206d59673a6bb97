// The schema cache as the tool host uses it: a restart lists unchanged plugins from the
// cache without importing them; a changed plugin, or a changed file it imports, is imported
// again; a broken plugin is never cached; a cache written by another version is ignored.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { PluginFile } from "../../../src/plugin_loader/load_plugins.ts";
import { emptyGrants } from "../../../src/sandbox/grants/grants.ts";
import { openToolHost } from "../../../src/sandbox/workers/tool_host.ts";

interface Fixture extends AsyncDisposable {
  dir: string;
  cacheFile: string;
  files: PluginFile[];
  /** Lists the tools as a fresh host would (a new process, same cache file). */
  list(): Promise<{ descriptions: Record<string, string>; errors: string[] }>;
}

const plugin = (name: string, description: string, extra = "") =>
  `${extra}
export default ({ z, defineTool }) =>
  defineTool({
    name: "${name}",
    description: ${description},
    risk: "safe",
    parameters: z.object({ text: z.string() }),
    run: ({ text }) => ({ output: text }),
  });
`;

async function fixture(sources: Record<string, string>): Promise<Fixture> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_catalog_" }));
  await Deno.mkdir(join(dir, "lib"));
  const files: PluginFile[] = [];
  for (const [name, source] of Object.entries(sources)) {
    const path = join(dir, name);
    await Deno.writeTextFile(path, source);
    if (!name.startsWith("lib/")) {
      files.push({
        path,
        url: pathToFileURL(path).href,
        origin: "user",
        name: name.replace(/\.ts$/, ""),
      });
    }
  }
  const cacheFile = join(dir, "cache", "tool_schemas.json");
  return {
    dir,
    cacheFile,
    files,
    async list() {
      const host = openToolHost({
        grants: emptyGrants(),
        workspace: dir,
        dataDir: join(dir, "out"),
        pluginFiles: files,
        schemaCacheFile: cacheFile,
      });
      try {
        await host.ready();
        const errors = (await host.loadErrors()).map((e) =>
          e.kind === "plugin_invalid" ? `${e.file}: ${e.reason}` : e.kind
        );
        const descriptions = Object.fromEntries(
          host.list().map((tool) => [tool.name, tool.description]),
        );
        return { descriptions, errors };
      } finally {
        await host.close();
      }
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The cached entries of the cache file, by plugin path (the file keys them by content hash). */
async function cachedByPath(
  cacheFile: string,
): Promise<Record<string, { info: { description: string } }>> {
  const cache = JSON.parse(await Deno.readTextFile(cacheFile));
  const entries = Object.values(cache.entries) as { path: string; info: { description: string } }[];
  return Object.fromEntries(entries.map((entry) => [entry.path, entry]));
}

/** Rewrites every cached description, to tell a listing from the cache from an import. */
async function markCache(cacheFile: string, mark: string): Promise<void> {
  const cache = JSON.parse(await Deno.readTextFile(cacheFile));
  for (const entry of Object.values(cache.entries) as { info: { description: string } }[]) {
    entry.info.description = mark;
  }
  await Deno.writeTextFile(cacheFile, JSON.stringify(cache));
}

Deno.test("a restart lists unchanged plugins from the schema cache without importing them", async () => {
  await using f = await fixture({
    "echo_a.ts": plugin("echo_a", '"Echo A"'),
    "echo_b.ts": plugin("echo_b", '"Echo B"'),
  });
  const first = await f.list();
  assertEquals(first, { descriptions: { echo_a: "Echo A", echo_b: "Echo B" }, errors: [] });
  await markCache(f.cacheFile, "from the cache");
  const second = await f.list();
  assertEquals(second.descriptions, { echo_a: "from the cache", echo_b: "from the cache" });
});

Deno.test("a changed plugin is imported again; the others still come from the cache", async () => {
  await using f = await fixture({
    "echo_a.ts": plugin("echo_a", '"Echo A"'),
    "echo_b.ts": plugin("echo_b", '"Echo B"'),
  });
  await f.list();
  await markCache(f.cacheFile, "from the cache");
  await Deno.writeTextFile(join(f.dir, "echo_a.ts"), plugin("echo_a", '"Echo A, edited"'));
  const listed = await f.list();
  assertEquals(listed.descriptions, { echo_a: "Echo A, edited", echo_b: "from the cache" });
  // And the cache now holds the new schema.
  const cache = await cachedByPath(f.cacheFile);
  assertEquals(cache[join(f.dir, "echo_a.ts")]?.info.description, "Echo A, edited");
  assertEquals(Object.keys(cache).length, 2, "one entry per plugin file");
});

Deno.test("a change in a file the plugin imports invalidates its cached schema", async () => {
  await using f = await fixture({
    "lib/words.ts": 'export const WORD = "first";\n',
    "echo_a.ts": plugin("echo_a", "`Echo ${WORD}`", 'import { WORD } from "./lib/words.ts";'),
  });
  assertEquals((await f.list()).descriptions, { echo_a: "Echo first" });
  await markCache(f.cacheFile, "from the cache");
  assertEquals((await f.list()).descriptions, { echo_a: "from the cache" });
  await Deno.writeTextFile(join(f.dir, "lib", "words.ts"), 'export const WORD = "second";\n');
  assertEquals((await f.list()).descriptions, { echo_a: "Echo second" });
});

Deno.test("a broken plugin is reported on every start and never cached", async () => {
  await using f = await fixture({
    "echo_a.ts": plugin("echo_a", '"Echo A"'),
    "broken.ts": "export default 42;\n",
  });
  for (let run = 0; run < 2; run++) {
    const listed = await f.list();
    assertEquals(listed.descriptions, { echo_a: "Echo A" });
    assertEquals(listed.errors.length, 1);
    assert(listed.errors[0]!.startsWith(join(f.dir, "broken.ts")), listed.errors[0]);
  }
  assertEquals(Object.keys(await cachedByPath(f.cacheFile)), [join(f.dir, "echo_a.ts")]);
});

Deno.test("a cache written by another version or corrupted is ignored and rewritten", async () => {
  await using f = await fixture({ "echo_a.ts": plugin("echo_a", '"Echo A"') });
  await f.list();
  await markCache(f.cacheFile, "from the cache");
  const cache = JSON.parse(await Deno.readTextFile(f.cacheFile));
  cache.writer = "harness 0.0.0-other, deno 1.0.0";
  await Deno.writeTextFile(f.cacheFile, JSON.stringify(cache));
  assertEquals((await f.list()).descriptions, { echo_a: "Echo A" });
  await Deno.writeTextFile(f.cacheFile, "{ not json");
  assertEquals((await f.list()).descriptions, { echo_a: "Echo A" });
  assert((await cachedByPath(f.cacheFile))[join(f.dir, "echo_a.ts")]);
});

Deno.test("a plugin whose top level never returns is named after its own deadline; the others load", async () => {
  await using f = await fixture({
    "alpha.ts": plugin("alpha", '"first"'),
    "hang.ts": plugin("hang", '"never"', "while (true) { /* blocks the loader's thread */ }"),
    "omega.ts": plugin("omega", '"last"'),
  });
  const host = openToolHost({
    grants: emptyGrants(),
    workspace: f.dir,
    dataDir: join(f.dir, "out"),
    pluginFiles: f.files,
    importTimeoutMs: 1_000,
  });
  try {
    const started = performance.now();
    await host.ready();
    const seconds = (performance.now() - started) / 1000;
    assertEquals(host.list().map((tool) => tool.name).sort(), ["alpha", "omega"]);
    const errors = (await host.loadErrors()).map((e) =>
      e.kind === "plugin_invalid" ? `${e.file}: ${e.reason}` : e.kind
    );
    assertEquals(errors.length, 1, errors.join("\n"));
    assert(errors[0]!.startsWith(join(f.dir, "hang.ts")), errors[0]);
    assert(errors[0]!.includes("did not finish within 1 s"), errors[0]);
    // Not the 30 s budget of the whole loader: one deadline plus two worker starts.
    assert(seconds < 15, `${seconds} s`);
  } finally {
    await host.close();
  }
});
