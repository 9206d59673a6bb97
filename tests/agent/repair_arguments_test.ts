// Tests for argument repair and the repeated-failure counter.

import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { repairArguments, RepeatedFailureTracker } from "../../src/agent/repair_arguments.ts";

const SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string" },
    limit: { type: "integer" },
    ratio: { type: "number" },
    recursive: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    options: { type: "object", properties: { depth: { type: "integer" } } },
    note: { anyOf: [{ type: "string" }, { type: "null" }] },
  },
  required: ["path"],
};

function repaired(text: string) {
  const result = repairArguments(text, SCHEMA);
  if (!("value" in result)) throw new Error(result.error);
  return result;
}

Deno.test("repairArguments() passes valid JSON through without repairs", () => {
  assertEquals(repaired('{"path": "a", "limit": 2}'), {
    value: { path: "a", limit: 2 },
    repairs: [],
  });
});

Deno.test("repairArguments() treats empty text as no arguments", () => {
  assertEquals(repaired("  "), { value: {}, repairs: [] });
});

Deno.test("repairArguments() decodes arguments given as a JSON string", () => {
  const r = repaired(JSON.stringify(JSON.stringify({ path: "a" })));
  assertEquals(r.value, { path: "a" });
  assertEquals(r.repairs, ["decoded arguments given as a JSON string"]);
});

Deno.test("repairArguments() removes trailing commas", () => {
  const r = repaired('{"path": "a", "tags": ["x", "y",],}');
  assertEquals(r.value, { path: "a", tags: ["x", "y"] });
  assertEquals(r.repairs, ["removed trailing commas"]);
});

Deno.test("repairArguments() replaces single quotes, keeping quotes inside strings", () => {
  const r = repaired(`{'path': 'it\\'s "here", ok'}`);
  assertEquals(r.value, { path: `it's "here", ok` });
  assertEquals(r.repairs, ["replaced single quotes with double quotes"]);
});

Deno.test("repairArguments() quotes bare keys and maps Python constants", () => {
  const r = repaired("{path: 'a', recursive: True, note: None}");
  assertEquals(r.value, { path: "a", recursive: true, note: null });
  assertEquals(r.repairs.length, 3);
});

Deno.test("repairArguments() leaves commas and colons inside strings alone", () => {
  assertEquals(repaired('{"path": "a,}", "note": "x: y"}').value, { path: "a,}", note: "x: y" });
});

Deno.test("repairArguments() converts strings to the numbers and booleans the schema wants", () => {
  const r = repaired('{"path": "a", "limit": "10", "ratio": "0.5", "recursive": "TRUE"}');
  assertEquals(r.value, { path: "a", limit: 10, ratio: 0.5, recursive: true });
  assertEquals(r.repairs, [
    'converted "limit" from a string to a number',
    'converted "ratio" from a string to a number',
    'converted "recursive" from a string to a boolean',
  ]);
});

Deno.test("repairArguments() converts numbers and booleans to strings when the schema wants one", () => {
  assertEquals(repaired('{"path": 42, "note": false}').value, { path: "42", note: "false" });
});

Deno.test("repairArguments() decodes nested JSON strings and coerces inside objects", () => {
  const r = repaired('{"path": "a", "tags": "[\\"x\\"]", "options": {"depth": "2"}}');
  assertEquals(r.value, { path: "a", tags: ["x"], options: { depth: 2 } });
});

Deno.test("repairArguments() leaves values it cannot convert for validation to report", () => {
  assertEquals(repaired('{"path": "a", "limit": "ten", "ratio": "1.5x"}').value, {
    path: "a",
    limit: "ten",
    ratio: "1.5x",
  });
  assertEquals(repaired('{"path": "a", "limit": "2.5"}').value, { path: "a", limit: "2.5" });
});

Deno.test("repairArguments() strips a code fence", () => {
  assertEquals(repaired('```json\n{"path": "a"}\n```').value, { path: "a" });
});

Deno.test("repairArguments() explains broken JSON and shows an example object", () => {
  const r = repairArguments('{"path": "a" "limit": 2', SCHEMA);
  ok("error" in r);
  ok(r.error.startsWith("Arguments are not valid JSON: "), r.error);
  ok(r.error.includes('e.g. {"path":"..."}'), r.error);
});

Deno.test("repairArguments() rejects arguments that are not an object", () => {
  const r = repairArguments('["a"]', SCHEMA);
  ok("error" in r);
  ok(r.error.startsWith("Arguments must be a JSON object, got an array"), r.error);
});

Deno.test("RepeatedFailureTracker says stop on the third identical failure", () => {
  const tracker = new RepeatedFailureTracker();
  assertEquals(tracker.record("read_file", '{"path": "x", "limit": 1}', "not_found"), false);
  assertEquals(tracker.record("read_file", '{ "limit": 1, "path": "x" }', "not_found"), false);
  assertEquals(tracker.record("read_file", '{"path": "y"}', "not_found"), false);
  assertEquals(tracker.record("read_file", '{"path": "x", "limit": 1}', "io_error"), false);
  assertEquals(tracker.record("read_file", { path: "x", limit: 1 }, "not_found"), true);
  tracker.reset();
  assertEquals(tracker.record("read_file", '{"path": "x", "limit": 1}', "not_found"), false);
});
