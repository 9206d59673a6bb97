// What a plugin file must export, checked inside the sandbox worker: the definition schema,
// plain-word zod issues, importing a plugin (factory form gets `{ z, ToolError, defineTool }`)
// and the JSON Schema the model sees. Used by src/sandbox/workers/tool_worker.ts.

import { z } from "zod";
import {
  defineTool,
  type ToolDefinition,
  ToolError,
  type ToolPermissions,
} from "../tools/define_tool.ts";
import type { FilePin } from "../platform/import_graph.ts";
import { harnessUrl } from "../platform/own_modules.ts";
import { fileURLToPath } from "../platform/file_urls.ts";

/** A plugin file to import. */
export interface PluginRef {
  url: string;
  path: string;
  name: string;
  /**
   * The plugin's files (it and its local imports) with their hashes, as the user trusted them
   * (a project plugin) or as harness listed them (any plugin the model could rewrite): the
   * worker hashes them again right before importing and refuses a change.
   */
  pins?: FilePin[];
}

/** A valid tool as the worker reports it. */
export interface WireToolInfo {
  name: string;
  description: string;
  risk: ToolDefinition["risk"];
  parameters: Record<string, unknown>;
  permissions?: ToolPermissions;
  timeoutMs?: number;
  path: string;
}

/** A plugin file that could not be imported or is not a valid tool. */
export interface LoadFailure {
  path: string;
  reason: string;
}

const permissionValue = z.union([z.boolean(), z.array(z.string())]).optional();
const definitionSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]+$/, "must use only letters, digits, _ and -"),
  description: z.string().trim().min(1, "must be a non-empty string"),
  risk: z.enum(["safe", "low", "medium", "high"]),
  parameters: z.custom<z.ZodType>(
    (v) => typeof v === "object" && v !== null && "_zod" in v,
    "must be a zod schema such as z.object({ ... })",
  ),
  permissions: z.strictObject({
    read: permissionValue,
    write: permissionValue,
    net: permissionValue,
    run: permissionValue,
    env: permissionValue,
    sys: permissionValue,
    ffi: permissionValue,
  }).optional(),
  timeoutMs: z.number().int().positive().optional(),
  run: z.custom<ToolDefinition["run"]>((v) => typeof v === "function", "must be a function"),
  preview: z.custom<NonNullable<ToolDefinition["preview"]>>(
    (v) => typeof v === "function",
    "must be a function",
  ).optional(),
});

function pathName(path: readonly PropertyKey[], root: string): string {
  if (path.length === 0) return root;
  return path.map((k, i) =>
    typeof k === "number" ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`
  ).join("");
}

export function shown(value: unknown): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function expectedWords(expected: string): string {
  const words: Record<string, string> = {
    string: "a string",
    number: "a number",
    int: "an integer",
    boolean: "true or false",
    object: "an object",
    array: "an array",
    null: "null",
  };
  return words[expected] ?? expected;
}

/**
 * Turns zod issues into plain sentences naming the field, e.g. `"path" is required:
 * expected a string` or `"limit" must be a number, got "ten"`.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { describeIssues } from "./plugin_definition.ts";
 * const r = z.object({ path: z.string() }).safeParse({}, { reportInput: true });
 * if (r.success || describeIssues(r.error.issues)[0] !== '"path" is required: expected a string') throw new Error();
 * ```
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], root = "arguments"): string[] {
  return issues.map((issue) => {
    const field = `"${pathName(issue.path, root)}"`;
    const got = "input" in issue ? `, got ${shown(issue.input)}` : "";
    switch (issue.code) {
      case "invalid_type":
        return "input" in issue && issue.input !== undefined
          ? `${field} must be ${expectedWords(issue.expected)}${got}`
          : `${field} is required: expected ${expectedWords(issue.expected)}`;
      case "too_small":
      case "too_big": {
        const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
        const most = issue.code === "too_small" ? "at least" : "at most";
        const strict = issue.code === "too_small" ? "more than" : "less than";
        const limit = `${issue.inclusive === false ? strict : most} ${String(bound)}`;
        const plural = Number(bound) === 1 ? "" : "s";
        if (issue.origin === "string") {
          return `${field} must have ${limit} character${plural}${got}`;
        }
        if (issue.origin === "array" || issue.origin === "set") {
          return `${field} must have ${limit} item${plural}`;
        }
        return `${field} must be ${limit}${got}`;
      }
      case "invalid_value":
        return `${field} must be one of ${issue.values.map((v) => shown(v)).join(", ")}${got}`;
      case "invalid_format":
        return `${field} must be a valid ${issue.format}${got}`;
      case "unrecognized_keys":
        return `${field} has unknown field${issue.keys.length > 1 ? "s" : ""} ${
          issue.keys.map((k) => `"${k}"`).join(", ")
        }: remove ${issue.keys.length > 1 ? "them" : "it"}`;
      default:
        return issue.message.startsWith("must ")
          ? `${field} ${issue.message}`
          : `${field}: ${issue.message}`;
    }
  });
}

async function importWithTimeout(url: string, ms: number): Promise<Record<string, unknown>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`import did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([import(url) as Promise<Record<string, unknown>>, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The built-in tools compiled into the worker's bundle, by file path (useBundledBuiltins). */
const bundledBuiltins = new Map<string, Record<string, unknown>>();

/**
 * Serves the built-in tools from the worker's bundle instead of importing their files (called
 * once by the bundle's worker entry, which scripts/build_bundle.ts writes): the bundle was
 * checked fresh against those files when harness started.
 *
 * @param modules Each built-in plugin's module, by its path in the checkout ("plugins/ls.ts").
 */
export function useBundledBuiltins(modules: Record<string, Record<string, unknown>>): void {
  for (const [path, module] of Object.entries(modules)) {
    bundledBuiltins.set(fileURLToPath(harnessUrl(path)), module);
  }
}

export async function loadPlugin(plugin: PluginRef, timeoutMs: number): Promise<ToolDefinition> {
  const module = bundledBuiltins.get(plugin.path) ??
    await importWithTimeout(plugin.url, timeoutMs);
  let exported = module.default;
  if (exported === undefined) {
    throw new Error("it has no default export: end it with `export default defineTool({ ... })`");
  }
  if (typeof exported === "function") {
    exported = await (exported as (api: unknown) => unknown)({ z, ToolError, defineTool });
  }
  const checked = definitionSchema.safeParse(exported, { reportInput: true });
  if (!checked.success) {
    throw new Error(
      `bad definition: ${describeIssues(checked.error.issues, "definition").join("; ")}`,
    );
  }
  const definition = checked.data as ToolDefinition;
  if (definition.name !== plugin.name) {
    throw new Error(
      `its name "${definition.name}" differs from the file name: rename the tool or the file to "${plugin.name}"`,
    );
  }
  return definition;
}

export function jsonSchemaOf(definition: ToolDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(definition.parameters, { io: "input" }) as Record<string, unknown>;
  delete schema.$schema;
  if (schema.type !== "object") {
    throw new Error("its parameters must be an object schema: use z.object({ ... })");
  }
  return schema;
}

/** The public description of a loaded definition (what the host lists and caches). */
export function wireInfo(definition: ToolDefinition, path: string): WireToolInfo {
  return {
    name: definition.name,
    description: definition.description.trim(),
    risk: definition.risk,
    parameters: jsonSchemaOf(definition),
    path,
    ...(definition.permissions ? { permissions: definition.permissions } : {}),
    ...(definition.timeoutMs ? { timeoutMs: definition.timeoutMs } : {}),
  };
}
