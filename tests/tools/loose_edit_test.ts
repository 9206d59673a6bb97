import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { looseEdit } from "../../src/tools/builtin/loose_edit.ts";

Deno.test("looseEdit() ignores blank lines around old_string and drops new_string's", () => {
  const result = looseEdit("a\n  b\n  c\nd\n", "\n\nb\nc\n\n", "\nB\nC\n\n");
  assertEquals(result, { kind: "replaced", text: "a\n  B\n  C\nd\n", firstLine: 2, lastLine: 3 });
});

Deno.test("looseEdit() does not match a line whose text differs, only its spaces", () => {
  const result = looseEdit("    foo(a, b)  # note\n", "foo(a, b)\n", "bar()\n");
  assert(result.kind !== "replaced", JSON.stringify(result));
});

Deno.test("looseEdit() finds the closest region of a 100,000-line file quickly", () => {
  const lines = Array.from({ length: 100_000 }, (_, i) => `  value_${i} = compute(${i}) + offset`);
  lines[73_000] = "  def handle_request(self, request, response):";
  lines[73_001] = "      return self.router.dispatch(request, response)";
  const started = performance.now();
  const result = looseEdit(
    lines.join("\n"),
    "def handle_requests(self, request, response):\n    return self.router.dispatch(request)",
    "x",
  );
  const elapsed = performance.now() - started;
  assertEquals(result.kind === "closest" ? [result.firstLine, result.lastLine] : result, [
    73_001,
    73_002,
  ]);
  assert(elapsed < 5000, `${elapsed} ms`);
});
