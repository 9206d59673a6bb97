import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { schemaTypes } from "../../src/platform/json_schema_types.ts";

Deno.test("schemaTypes() reads type names, type lists and anyOf/oneOf alternatives", () => {
  assertEquals(schemaTypes({ type: "string" }), ["string"]);
  assertEquals(schemaTypes({ type: ["integer", "null", 3] }), ["integer", "null"]);
  assertEquals(
    schemaTypes({ oneOf: [{ type: "boolean" }, { anyOf: [{ type: "array" }, { type: "null" }] }] }),
    ["boolean", "array", "null"],
  );
  assertEquals(schemaTypes({ type: "object", anyOf: [{ type: "null" }] }), ["object", "null"]);
});

Deno.test("schemaTypes() allows no known type for what is not a schema", () => {
  assertEquals(schemaTypes(undefined), []);
  assertEquals(schemaTypes("string"), []);
  assertEquals(schemaTypes({ description: "anything" }), []);
});

Deno.test("schemaTypes() takes an enum's value types only where asked and no type is named", () => {
  const choice = { enum: ["a", "b", null] };
  assertEquals(schemaTypes(choice), []);
  assertEquals(schemaTypes(choice, { fromEnum: true }), ["string", "null"]);
  assertEquals(schemaTypes({ type: "string", enum: [1] }, { fromEnum: true }), ["string"]);
  assertEquals(
    schemaTypes({ anyOf: [{ enum: [1, 2] }, { type: "null" }] }, { fromEnum: true }),
    ["number", "null"],
  );
});
