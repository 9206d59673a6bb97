// writePluginSkeleton(): the files `harness plugin new NAME` writes. Checks names, refusing to
// overwrite, that the plugin type-checks with `deno check` in a folder without deno.json (and
// fails when misused, so the types are real), that the declared api matches the real runtime
// api, and that the skeleton runs when loaded the way the plugin loader loads it.

import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { z } from "zod";
import { defineTool, type ToolDefinition, ToolError } from "../../src/tools/define_tool.ts";
import { HARNESS_PLUGIN_DTS } from "../../src/plugin_loader/harness_plugin_dts.ts";
import {
  pluginSkeletonSource,
  writePluginSkeleton,
} from "../../src/plugin_loader/plugin_skeleton.ts";
import { expectToolError, makeToolContext, runTool } from "../helpers/tool_context.ts";

const REPO_CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
const DEFINE_TOOL_URL = new URL("../../src/tools/define_tool.ts", import.meta.url).href;

interface TempDir extends AsyncDisposable {
  path: string;
  plugins: string;
}

async function makeTempDir(): Promise<TempDir> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_skeleton_test_" }));
  return {
    path,
    plugins: join(path, "plugins"),
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

/** Runs `deno check` on `file` inside `cwd`; returns success and the diagnostics. */
async function denoCheck(
  cwd: string,
  file: string,
  extraArgs: string[] = [],
): Promise<{ success: boolean; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", ...extraArgs, file],
    cwd,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    success: output.success,
    stderr: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("writePluginSkeleton() writes NAME.ts in factory form and harness_plugin.d.ts", async () => {
  await using tmp = await makeTempDir();
  const result = await writePluginSkeleton({ dir: tmp.plugins, name: "greet" });
  assert(result.ok, JSON.stringify(result));
  assertEquals(result.value, {
    pluginPath: join(tmp.plugins, "greet.ts"),
    typesPath: join(tmp.plugins, "harness_plugin.d.ts"),
  });
  const source = await Deno.readTextFile(result.value.pluginPath);
  assertEquals(source, pluginSkeletonSource("greet"));
  assert(source.includes('import type { PluginApi } from "./harness_plugin.d.ts";'), source);
  assert(source.includes("export default ({ z, ToolError, defineTool }: PluginApi) =>"), source);
  for (const part of ['name: "greet"', "description:", 'risk: "safe"', ".describe(", "output"]) {
    assert(source.includes(part), `skeleton lacks ${part}`);
  }
  const types = await Deno.readTextFile(result.value.typesPath);
  assertEquals(types, HARNESS_PLUGIN_DTS);
  assert(!/^\s*import\s/m.test(types), "harness_plugin.d.ts must not import anything");
});

Deno.test("writePluginSkeleton() rejects names that are not /^[a-z][a-z0-9_]*$/", async () => {
  await using tmp = await makeTempDir();
  for (const name of ["Greet", "1greet", "greet-me", "greet.ts", "", "../greet", "a".repeat(65)]) {
    const result = await writePluginSkeleton({ dir: tmp.plugins, name });
    assert(!result.ok, `"${name}" must be rejected`);
    assertEquals(result.error.kind, "usage");
    assert(
      result.error.kind === "usage" &&
        result.error.message.startsWith(`Invalid plugin name "${name}": `),
    );
  }
  const bad = await writePluginSkeleton({ dir: tmp.plugins, name: "Greet" });
  assert(
    !bad.ok && bad.error.kind === "usage" && bad.error.message.includes("/^[a-z][a-z0-9_]*$/"),
  );
  const reserved = await writePluginSkeleton({ dir: tmp.plugins, name: "harness_plugin" });
  assert(!reserved.ok);
  assert(!(await exists(tmp.plugins)), "nothing is written for an invalid name");
});

Deno.test("writePluginSkeleton() refuses to overwrite an existing plugin file", async () => {
  await using tmp = await makeTempDir();
  await Deno.mkdir(tmp.plugins);
  await Deno.writeTextFile(join(tmp.plugins, "greet.ts"), "// mine\n");
  const result = await writePluginSkeleton({ dir: tmp.plugins, name: "greet" });
  assert(!result.ok);
  assertEquals(result.error, {
    kind: "usage",
    message: `Plugin file "${join(tmp.plugins, "greet.ts")}" already exists: choose another ` +
      "name, or delete or rename the file first",
  });
  assertEquals(await Deno.readTextFile(join(tmp.plugins, "greet.ts")), "// mine\n");
});

Deno.test("writePluginSkeleton() keeps an existing harness_plugin.d.ts for a second plugin", async () => {
  await using tmp = await makeTempDir();
  assert((await writePluginSkeleton({ dir: tmp.plugins, name: "first" })).ok);
  const typesPath = join(tmp.plugins, "harness_plugin.d.ts");
  await Deno.writeTextFile(typesPath, HARNESS_PLUGIN_DTS + "// my additions\n");
  const second = await writePluginSkeleton({ dir: tmp.plugins, name: "second" });
  assert(second.ok);
  assertEquals(second.value.typesPath, typesPath);
  assert((await Deno.readTextFile(typesPath)).endsWith("// my additions\n"));
  assert(await exists(join(tmp.plugins, "second.ts")));
});

Deno.test("writePluginSkeleton() output type-checks with deno check and no deno.json", async () => {
  await using tmp = await makeTempDir();
  assert((await writePluginSkeleton({ dir: tmp.plugins, name: "greet" })).ok);
  assert(!(await exists(join(tmp.path, "deno.json"))));
  const plain = await denoCheck(tmp.path, "plugins/greet.ts");
  assert(plain.success, plain.stderr);

  // Also under the repository's strict options, which a careful user may copy.
  const strictDir = join(tmp.path, "strict");
  await Deno.mkdir(strictDir);
  await Deno.writeTextFile(
    join(strictDir, "deno.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
      },
    }),
  );
  assert((await writePluginSkeleton({ dir: join(strictDir, "plugins"), name: "greet" })).ok);
  const strict = await denoCheck(strictDir, "plugins/greet.ts");
  assert(strict.success, strict.stderr);
});

Deno.test("harness_plugin.d.ts types run's arguments from the zod parameters", async () => {
  await using tmp = await makeTempDir();
  assert((await writePluginSkeleton({ dir: tmp.plugins, name: "greet" })).ok);
  const path = join(tmp.plugins, "greet.ts");
  const source = await Deno.readTextFile(path);
  // `who` is a string and `shout` a boolean: both misuses must be type errors.
  await Deno.writeTextFile(
    path,
    source.replace("const text = `", "who.toFixed(2);\n      shout.length;\n      const text = `"),
  );
  const broken = await denoCheck(tmp.path, "plugins/greet.ts");
  assert(!broken.success, "misuse of typed arguments must fail deno check");
  assert(
    broken.stderr.includes("Property 'toFixed' does not exist on type 'string'"),
    broken.stderr,
  );
  assert(
    broken.stderr.includes("Property 'length' does not exist on type 'boolean'"),
    broken.stderr,
  );
});

Deno.test("harness_plugin.d.ts declares a subset of the real zod and ToolError", async () => {
  await using tmp = await makeTempDir();
  assert((await writePluginSkeleton({ dir: tmp.plugins, name: "greet" })).ok);
  // Every declared schema type must accept what the real zod builds, and the real ToolError
  // must fit the declared constructor; the repo's config resolves "zod" like the host does.
  await Deno.writeTextFile(
    join(tmp.path, "compat.ts"),
    `import { z } from "zod";
import { ToolError } from "${DEFINE_TOOL_URL}";
import type {
  ToolErrorConstructor, ZodArray, ZodNumber, ZodObject, ZodString, ZodType,
} from "./plugins/harness_plugin.d.ts";
export const s: ZodString = z.string().min(1).max(9).regex(/x/).trim().describe("d");
export const n: ZodNumber = z.number().int().min(0).max(9).positive().nonnegative();
export const b: ZodType<boolean> = z.boolean().default(false);
export const o: ZodType<string | null | undefined> = z.string().nullable().optional();
export const obj: ZodObject<{ a: ZodString; b: ZodType<number | undefined> }> = z.object({
  a: z.string(),
  b: z.number().optional(),
});
export const e: ZodType<"x" | "y"> = z.enum(["x", "y"]);
export const l: ZodType<3> = z.literal(3);
export const u: ZodType<string | number> = z.union([z.string(), z.number()]);
export const a: ZodArray<ZodString> = z.array(z.string()).min(1).max(3);
export const te: ToolErrorConstructor = ToolError;
`,
  );
  const result = await denoCheck(tmp.path, "compat.ts", ["--config", REPO_CONFIG, "--no-lock"]);
  assert(result.success, result.stderr);
});

Deno.test("the skeleton plugin runs when loaded like a dropped plugin", async () => {
  await using tmp = await makeTempDir();
  const written = await writePluginSkeleton({ dir: tmp.plugins, name: "greet" });
  assert(written.ok);
  const module: { default: (api: unknown) => ToolDefinition } = await import(
    pathToFileURL(written.value.pluginPath).href
  );
  const tool = module.default({ z, ToolError, defineTool });
  assertEquals(tool.name, "greet");
  await using ctx = await makeToolContext();
  assertEquals((await runTool(tool, { who: " Ada " }, ctx)).output, "Hello, Ada!");
  assertEquals((await runTool(tool, { who: "Ada", shout: true }, ctx)).output, "HELLO, ADA!");
  const message = await expectToolError(tool, { who: "  " }, ctx, "validation_failed");
  assertEquals(message, "`who` is empty. Call greet again with a name");
});
