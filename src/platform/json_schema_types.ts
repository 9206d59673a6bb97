// The JSON Schema types a schema allows, read as both argument repair (agent/) and the text
// tool-call parsers (providers/) need them: `type` as a name or a list, the options of anyOf
// and oneOf, and, where asked, the types of an `enum`'s values when no type is named. Pure.

import { isRecord } from "./json_values.ts";

/**
 * The JSON Schema types a schema allows (type, type arrays, anyOf/oneOf, recursively).
 *
 * @param schema A JSON Schema (anything else allows no known type).
 * @param options `fromEnum`: a schema that names no type but lists `enum` values allows
 *   their types (`null` for null), at every level.
 * @returns The type names, in the order found (repeats kept).
 *
 * @example
 * ```ts
 * import { schemaTypes } from "./json_schema_types.ts";
 * const nullable = { anyOf: [{ type: "integer" }, { type: "null" }] };
 * if (schemaTypes(nullable).join() !== "integer,null") throw new Error();
 * if (schemaTypes({ enum: ["a", 1] }).length !== 0) throw new Error();
 * if (schemaTypes({ enum: ["a", 1] }, { fromEnum: true }).join() !== "string,number") {
 *   throw new Error();
 * }
 * ```
 */
export function schemaTypes(schema: unknown, options: { fromEnum?: boolean } = {}): string[] {
  if (!isRecord(schema)) return [];
  const types: string[] = [];
  if (typeof schema.type === "string") types.push(schema.type);
  if (Array.isArray(schema.type)) {
    types.push(...schema.type.filter((t): t is string => typeof t === "string"));
  }
  for (const key of ["anyOf", "oneOf"]) {
    const alternatives = schema[key];
    if (Array.isArray(alternatives)) {
      for (const alternative of alternatives) types.push(...schemaTypes(alternative, options));
    }
  }
  if (options.fromEnum && types.length === 0 && Array.isArray(schema.enum)) {
    types.push(...new Set(schema.enum.map((v) => (v === null ? "null" : typeof v))));
  }
  return types;
}
