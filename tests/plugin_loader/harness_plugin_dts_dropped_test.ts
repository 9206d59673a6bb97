// "Plugins dropped next to a compiled binary work": copies factory-form plugins from
// tests/fixtures/dropped_plugin to a temp folder outside the repository (without their type
// file), imports them from an absolute file URL as the binary does, calls the factory with
// { z, ToolError, defineTool } and runs the tool.

import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { z } from "zod";
import { defineTool, type ToolDefinition, ToolError } from "../../src/tools/define_tool.ts";
import { HARNESS_PLUGIN_DTS } from "../../src/plugin_loader/harness_plugin_dts.ts";
import { expectToolError, makeToolContext, runTool } from "../helpers/tool_context.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/dropped_plugin/", import.meta.url));
const REPO = fileURLToPath(new URL("../../", import.meta.url));

interface DroppedFolder extends AsyncDisposable {
  dir: string;
}

/** Copies fixture files (only those named) into a new temp folder outside the repository. */
async function dropPlugins(names: string[]): Promise<DroppedFolder> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_dropped_" }));
  assert(relative(REPO, dir).startsWith(".."), `temp folder ${dir} must be outside ${REPO}`);
  for (const name of names) await Deno.copyFile(join(FIXTURES, name), join(dir, name));
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/** What the plugin loader does with a file on disk: import by URL, call a factory export. */
async function importDroppedPlugin(path: string): Promise<ToolDefinition> {
  const module: { default?: unknown } = await import(pathToFileURL(path).href);
  const exported = module.default;
  const definition: unknown = typeof exported === "function"
    ? exported({ z, ToolError, defineTool })
    : exported;
  assert(typeof definition === "object" && definition !== null, `${path}: no definition`);
  const tool = definition as ToolDefinition;
  assert(typeof tool.name === "string" && typeof tool.run === "function", `${path}: not a tool`);
  assert(tool.parameters instanceof z.ZodType, `${path}: parameters must be a zod schema`);
  return tool;
}

Deno.test("a dropped factory plugin imported by file URL runs with the host's zod", async () => {
  await using dropped = await dropPlugins(["word_stats.ts"]);
  const tool = await importDroppedPlugin(join(dropped.dir, "word_stats.ts"));
  assertEquals(tool.name, "word_stats");
  assertEquals(tool.risk, "safe");
  assertEquals(tool.permissions, { read: ["."] });

  await using ctx = await makeToolContext({ "notes.txt": "the cat saw the dog. The end\n" });
  const result = await runTool(tool, { path: "notes.txt" }, ctx);
  assertEquals(result.output, "7 words; most frequent: the (3), cat (1), dog (1)");
  const one = await runTool(tool, { path: "notes.txt", top: 1 }, ctx);
  assertEquals(one.output, "7 words; most frequent: the (3)");
});

Deno.test("a dropped plugin's schema validates and describes its arguments", async () => {
  await using dropped = await dropPlugins(["word_stats.ts"]);
  const tool = await importDroppedPlugin(join(dropped.dir, "word_stats.ts"));
  assert(!tool.parameters.safeParse({ path: 3 }).success);
  assert(!tool.parameters.safeParse({ path: "a.txt", top: 0 }).success);
  // "input": the shape the model sends, where fields with a default may be left out.
  const schema = z.toJSONSchema(tool.parameters, { io: "input" }) as {
    properties: Record<string, { description?: string }>;
    required?: string[];
  };
  assertEquals(schema.properties["path"]?.description, "Workspace-relative path of the file");
  assertEquals(schema.properties["top"]?.description, "How many frequent words to list");
  assertEquals(schema.required, ["path"]);
});

Deno.test("a dropped plugin throws the ToolError class the host passed it", async () => {
  await using dropped = await dropPlugins(["word_stats.ts"]);
  const tool = await importDroppedPlugin(join(dropped.dir, "word_stats.ts"));
  await using ctx = await makeToolContext();
  const message = await expectToolError(tool, { path: "missing.txt" }, ctx, "not_found");
  assertEquals(message, 'File "missing.txt" not found. Call ls to see what exists');
});

Deno.test("a dropped plain-JavaScript factory plugin runs too", async () => {
  await using dropped = await dropPlugins(["shout.js"]);
  const tool = await importDroppedPlugin(join(dropped.dir, "shout.js"));
  await using ctx = await makeToolContext();
  assertEquals((await runTool(tool, { text: "hi there" }, ctx)).output, "HI THERE");
});

Deno.test("the dropped fixture type-checks with deno check and no deno.json", async () => {
  await using dropped = await dropPlugins(["word_stats.ts"]);
  // The types file `harness plugin new` writes next to the plugin.
  await Deno.writeTextFile(join(dropped.dir, "harness_plugin.d.ts"), HARNESS_PLUGIN_DTS);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "word_stats.ts"],
    cwd: dropped.dir,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
});
