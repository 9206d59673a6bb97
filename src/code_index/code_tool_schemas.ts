// The schemas of the code-graph tools (code_map, find_definition, find_references) as the
// model sees them, and the check of a call's arguments against a schema (also search_code's,
// search_code_tool.ts). The tools run in the host, outside the plugin validator.

import type { Result } from "../errors.ts";
import type { ToolInfo } from "../tools/tool_entry.ts";

const MAP_DESCRIPTION =
  "Outline of the most relevant source files: definitions' signature lines with line ranges, " +
  "ranked by how the code uses them and by the conversation. Use it to find where to look.";
const DEF_DESCRIPTION =
  "Find where a function, class, method, type or constant is defined: path:line: signature.";
const REF_DESCRIPTION = "Find the lines that use (call or name) an identifier: path:line: text.";

/** The tools' schemas, as the model sees them. */
export const CODE_TOOL_INFOS: readonly ToolInfo[] = [
  {
    name: "code_map",
    description: MAP_DESCRIPTION,
    risk: "safe",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Only files under this folder or this file" },
        max_tokens: { type: "integer", minimum: 64, description: "Token budget of the map" },
      },
      additionalProperties: false,
    },
    source: "builtin:code_index",
    origin: "builtin",
  },
  {
    name: "find_definition",
    description: DEF_DESCRIPTION,
    risk: "safe",
    parameters: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, description: "Identifier to look up" },
        kind: {
          type: "string",
          description: "Only this kind: function, class, method, interface, type, enum, ...",
        },
      },
      required: ["name"],
      additionalProperties: false,
    },
    source: "builtin:code_index",
    origin: "builtin",
  },
  {
    name: "find_references",
    description: REF_DESCRIPTION,
    risk: "safe",
    parameters: {
      type: "object",
      properties: { name: { type: "string", minLength: 1, description: "Identifier" } },
      required: ["name"],
      additionalProperties: false,
    },
    source: "builtin:code_index",
    origin: "builtin",
  },
];

/** A call's arguments. */
export type Args = Record<string, unknown>;

/**
 * Checks arguments against a code tool's schema: known keys, required ones, non-empty strings
 * and whole numbers within the schema's bounds.
 *
 * @param info The tool's schema.
 * @param args The call's arguments.
 * @returns The arguments, or the problems found.
 *
 * @example
 * ```ts
 * import { CODE_TOOL_INFOS, validateArgs } from "./code_tool_schemas.ts";
 * const r = validateArgs(CODE_TOOL_INFOS[1]!, { kind: "class" });
 * if (r.ok || r.error[0] !== '"name" is required') throw new Error();
 * ```
 */
export function validateArgs(info: ToolInfo, args: unknown): Result<Args, string[]> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { ok: false, error: ["arguments must be a JSON object"] };
  }
  const record = args as Args;
  const properties = info.parameters.properties as Record<
    string,
    { type: string; minimum?: number; maximum?: number }
  >;
  const issues: string[] = [];
  for (const key of Object.keys(record)) {
    if (!(key in properties)) issues.push(`unknown argument "${key}"`);
  }
  for (const key of (info.parameters.required as string[] | undefined) ?? []) {
    if (record[key] === undefined) issues.push(`"${key}" is required`);
  }
  for (const [key, spec] of Object.entries(properties)) {
    const value = record[key];
    if (value === undefined) continue;
    if (spec.type === "string" && (typeof value !== "string" || value.trim() === "")) {
      issues.push(`"${key}" must be a non-empty string`);
    }
    const min = spec.minimum ?? -Infinity;
    const max = spec.maximum ?? Infinity;
    if (
      spec.type === "integer" &&
      (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
    ) {
      issues.push(
        `"${key}" must be a whole number ${
          max === Infinity ? `of at least ${min}` : `from ${min} to ${max}`
        }`,
      );
    }
  }
  return issues.length > 0 ? { ok: false, error: issues } : { ok: true, value: record };
}
