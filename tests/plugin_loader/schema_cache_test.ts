// SchemaCache.fingerprint(): a plugin's fingerprint is remembered with the size and time of
// its files and those it imports, so a start whose plugins did not change reads none of them;
// any change (a helper edited, a missing import appearing, a file too fresh to judge by its
// time) computes it again.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { fingerprintFiles, SchemaCache } from "../../src/plugin_loader/schema_cache.ts";
import { localImports } from "../../src/platform/import_graph.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const LONG_AGO = new Date(Date.now() - 60_000);

/** Fingerprints `plugin` through `cache`, counting how often its files were read. */
function counted(cache: SchemaCache, plugin: string) {
  const run = { computed: 0 };
  const fingerprint = () =>
    cache.fingerprint(plugin, async () => {
      run.computed++;
      const { files, missing } = await localImports(plugin);
      return { files, missing, fingerprint: await fingerprintFiles(files) };
    });
  return { run, fingerprint };
}

async function age(...paths: string[]): Promise<void> {
  for (const path of paths) await Deno.utime(path, LONG_AGO, LONG_AGO);
}

Deno.test("SchemaCache.fingerprint() reads no file again while none changed", async () => {
  await using dir = await tempDir();
  const plugin = join(dir.path, "p.ts");
  await Deno.writeTextFile(plugin, 'import { h } from "./h.ts";\nexport default h;\n');
  await Deno.writeTextFile(join(dir.path, "h.ts"), "export const h = 1;\n");
  await age(plugin, join(dir.path, "h.ts"));
  const cacheFile = join(dir.path, "cache.json");
  const first = await SchemaCache.open(cacheFile, "v1");
  const a = counted(first, plugin);
  const before = await a.fingerprint();
  await first.save();
  // A later start: the stamps are read from the file, the plugin's files are not.
  const again = counted(await SchemaCache.open(cacheFile, "v1"), plugin);
  assertEquals(await again.fingerprint(), before);
  assertEquals([a.run.computed, again.run.computed], [1, 0]);
});

Deno.test("SchemaCache.fingerprint() notices an edited helper and a missing one appearing", async () => {
  await using dir = await tempDir();
  const plugin = join(dir.path, "p.ts");
  const helper = join(dir.path, "h.ts");
  const later = join(dir.path, "later.ts");
  await Deno.writeTextFile(plugin, 'import "./h.ts";\nimport "./later.ts";\nexport default 1;\n');
  await Deno.writeTextFile(helper, "export const h = 1;\n");
  await age(plugin, helper);
  const cache = await SchemaCache.open(undefined, "v1");
  const f = counted(cache, plugin);
  const first = await f.fingerprint();
  assertEquals(await f.fingerprint(), first);
  assertEquals(f.run.computed, 1);
  // The helper is edited (another size and time): computed again, another fingerprint.
  await Deno.writeTextFile(helper, "export const h = 22;\n");
  await age(helper);
  const edited = await f.fingerprint();
  assertEquals([f.run.computed, edited !== first], [2, true]);
  // The file the plugin imports but that was missing appears.
  await Deno.writeTextFile(later, "export {};\n");
  await age(later);
  const appeared = await f.fingerprint();
  assertEquals([f.run.computed, appeared !== edited], [3, true]);
  assertEquals(await f.fingerprint(), appeared);
  assertEquals(f.run.computed, 3);
});

Deno.test("SchemaCache.fingerprint() never trusts the time of a file written just before", async () => {
  await using dir = await tempDir();
  const plugin = join(dir.path, "p.ts");
  await Deno.writeTextFile(plugin, "export default 1;\n");
  // Written now: written again within the same tick it would keep its size and time.
  const cache = await SchemaCache.open(undefined, "v1");
  const f = counted(cache, plugin);
  await f.fingerprint();
  await f.fingerprint();
  assertEquals(f.run.computed, 2);
});

Deno.test("SchemaCache.save() drops the plugins whose files are gone", async () => {
  // A removed checkout's built-ins stayed in the one cache file every start parses: on a
  // developer's machine 1,188 plugins and 2 MB, 15 ms to read and parse.
  await using dir = await tempDir();
  const kept = join(dir.path, "kept.ts");
  const removed = join(dir.path, "old", "removed.ts");
  const added = join(dir.path, "added.ts");
  await Deno.mkdir(join(dir.path, "old"));
  for (const plugin of [kept, removed, added]) await Deno.writeTextFile(plugin, "export {};\n");
  await age(kept, removed, added);
  const info = (name: string) => ({
    name,
    description: "d",
    risk: "safe" as const,
    parameters: { type: "object" },
  });
  const cacheFile = join(dir.path, "cache.json");
  const first = await SchemaCache.open(cacheFile, "v1");
  const keptPrint = (await counted(first, kept).fingerprint())!;
  first.store(kept, keptPrint, info("kept"));
  first.store(removed, (await counted(first, removed).fingerprint())!, info("removed"));
  await first.save();
  await Deno.remove(join(dir.path, "old"), { recursive: true });
  // A later start changes something (a plugin added), so it writes the file again.
  const later = await SchemaCache.open(cacheFile, "v1");
  later.store(added, (await counted(later, added).fingerprint())!, info("added"));
  await later.save();
  assertEquals((await Deno.readTextFile(cacheFile)).includes(removed), false);
  const again = await SchemaCache.open(cacheFile, "v1");
  assertEquals(again.lookup(kept, keptPrint)?.name, "kept");
});
