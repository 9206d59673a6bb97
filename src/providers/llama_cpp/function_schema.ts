// Converts our tools' JSON Schemas (from z.toJSONSchema) into the subset node-llama-cpp's
// grammar generator understands, and undoes the one change that needs undoing. The library
// makes every object property required, so optional properties (not required, or with a
// default) become nullable, and null values for them are dropped from the model's arguments.

/** A JSON value as parsed by JSON.parse. */
export type JsonValue = null | boolean | number | string | JsonValue[] | {
  [key: string]: JsonValue;
};

type Schema = Record<string, unknown>;

const ANY_SCALAR = { type: ["string", "number", "boolean", "null"] } as const;
const BASIC_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/**
 * Converts a tool's JSON Schema to a node-llama-cpp `GbnfJsonSchema`, or undefined for a tool
 * without parameters.
 *
 * @param schema The parameters schema of one tool.
 * @returns The grammar schema, or undefined when the tool takes no arguments.
 * @example
 * ```ts
 * import { toGrammarSchema } from "./function_schema.ts";
 * const s = toGrammarSchema({
 *   type: "object",
 *   properties: { path: { type: "string" }, limit: { type: "integer" } },
 *   required: ["path"],
 * });
 * const limit = (s as { properties: Record<string, unknown> }).properties.limit;
 * if (JSON.stringify(limit) !== '{"oneOf":[{"type":"integer"},{"type":"null"}]}') throw new Error();
 * ```
 */
export function toGrammarSchema(schema: Record<string, unknown>): Schema | undefined {
  const properties = asSchema(schema.properties);
  if (schema.type === "object" && (!properties || Object.keys(properties).length === 0)) {
    return undefined;
  }
  return convert(schema);
}

/**
 * Removes null values the model gave for optional properties, so defaults apply.
 *
 * @param value The parsed arguments.
 * @param schema The tool's original JSON Schema.
 * @returns The arguments without nulls for optional properties.
 * @example
 * ```ts
 * import { dropOptionalNulls } from "./function_schema.ts";
 * const schema = { type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["a"] };
 * if (JSON.stringify(dropOptionalNulls({ a: "x", b: null }, schema)) !== '{"a":"x"}') throw new Error();
 * ```
 */
export function dropOptionalNulls(value: JsonValue, schema: Record<string, unknown>): JsonValue {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    return items ? value.map((item) => dropOptionalNulls(item, items)) : value;
  }
  const properties = asSchema(schema.properties) ?? {};
  const result: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(value)) {
    const propertySchema = asSchema(properties[key]);
    if (item === null && propertySchema && isOptional(schema, key, propertySchema)) continue;
    result[key] = propertySchema ? dropOptionalNulls(item, propertySchema) : item;
  }
  return result;
}

function convert(schema: Schema): Schema {
  const description = typeof schema.description === "string"
    ? { description: schema.description }
    : {};
  if ("const" in schema && isScalar(schema.const)) return { const: schema.const, ...description };
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter(isScalar);
    if (values.length > 0) return { enum: values, ...description };
  }
  const alternatives = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
    ? schema.oneOf
    : undefined;
  if (alternatives) {
    const options = alternatives.map(asSchema).filter((s): s is Schema => s !== undefined);
    return { oneOf: options.map(convert), ...description };
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    const basic = type.filter((t): t is string => typeof t === "string" && BASIC_TYPES.has(t));
    if (basic.length === type.length && basic.length > 0) return { type: basic, ...description };
    return {
      oneOf: type.filter((t): t is string => typeof t === "string").map((t) =>
        convert({ ...schema, type: t })
      ),
      ...description,
    };
  }
  switch (type) {
    case "string": {
      const out: Schema = { type: "string", ...description };
      if (typeof schema.minLength === "number") out.minLength = schema.minLength;
      if (typeof schema.maxLength === "number") out.maxLength = schema.maxLength;
      if (schema.format === "date-time" || schema.format === "date" || schema.format === "time") {
        out.format = schema.format;
      }
      return out;
    }
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return { type, ...description };
    case "array": {
      const out: Schema = { type: "array", ...description };
      const items = asSchema(schema.items);
      out.items = items ? convert(items) : ANY_SCALAR;
      if (typeof schema.minItems === "number") out.minItems = schema.minItems;
      if (typeof schema.maxItems === "number") out.maxItems = schema.maxItems;
      return out;
    }
    case "object": {
      const properties = asSchema(schema.properties) ?? {};
      const converted: Record<string, Schema> = {};
      for (const [key, value] of Object.entries(properties)) {
        const propertySchema = asSchema(value) ?? {};
        const inner = convert(propertySchema);
        converted[key] = isOptional(schema, key, propertySchema)
          ? { oneOf: [stripDescription(inner), { type: "null" }], ...descriptionOf(inner) }
          : inner;
      }
      const extra = schema.additionalProperties;
      const additional = extra === true
        ? ANY_SCALAR
        : asSchema(extra)
        ? convert(asSchema(extra) ?? {})
        : false;
      return {
        type: "object",
        properties: converted,
        ...(additional === false ? {} : { additionalProperties: additional }),
        ...description,
      };
    }
    default:
      return { ...ANY_SCALAR, ...description };
  }
}

function isOptional(parent: Schema, key: string, property: Schema): boolean {
  const required = Array.isArray(parent.required) ? parent.required : [];
  return !required.includes(key) || "default" in property;
}

function stripDescription(schema: Schema): Schema {
  const { description: _description, ...rest } = schema;
  return rest;
}

function descriptionOf(schema: Schema): Schema {
  return typeof schema.description === "string" ? { description: schema.description } : {};
}

function asSchema(value: unknown): Schema | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Schema
    : undefined;
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}
