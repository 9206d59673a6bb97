import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { builtinPluginDir } from "../../src/plugin_loader/load_plugins.ts";
import { BUILTIN_RISKS } from "../../src/plugin_loader/builtin_risks.ts";

Deno.test("BUILTIN_RISKS holds the risk each plugins/ file declares", async () => {
  const declared: Record<string, string> = {};
  for await (const entry of Deno.readDir(builtinPluginDir())) {
    if (!entry.name.endsWith(".ts")) continue;
    const url = pathToFileURL(join(builtinPluginDir(), entry.name)).href;
    const module = await import(url);
    declared[module.default.name] = module.default.risk;
  }
  const sorted = (record: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
  assertEquals(sorted(BUILTIN_RISKS), sorted(declared));
});
