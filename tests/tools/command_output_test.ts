import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { OutputCollector } from "../../src/tools/builtin/command_output.ts";

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("OutputCollector.text() keeps a character split by the head edge when nothing is cut", () => {
  const out = new OutputCollector({ headBytes: 2, tailBytes: 10 });
  out.push(encode("aé")); // "é" is C3 A9: C3 lands in the head, A9 in the tail
  out.push(encode("b"));
  assertEquals(out.text(), "aéb");
});

Deno.test("OutputCollector.text() cuts on character boundaries at both edges", () => {
  const out = new OutputCollector({ headBytes: 2, tailBytes: 3 });
  // The head edge splits "é" (2 bytes); the tail edge splits "😀" (4 bytes).
  out.push(encode(`aé${"x".repeat(20)}😀b`));
  const text = out.text();
  assert(!text.includes("\ufffd"), JSON.stringify(text));
  assert(text.startsWith("a\n[... "), JSON.stringify(text));
  assert(text.includes(" ...]\nb\n"), JSON.stringify(text));
  // The last line gives the real size, where a cut for the model's context keeps it.
  assert(text.endsWith("\n[the command printed 28 B: only its first 1 B and last 1 B were kept]"));
  // Everything not shown is counted as cut: 28 bytes in total, "a" and "b" kept.
  assert(text.includes("[... 26 bytes of output cut here; 28 bytes in total ...]"), text);
});

Deno.test("OutputCollector.text() keeps whole multi-byte characters at the edges", () => {
  const out = new OutputCollector({ headBytes: 3, tailBytes: 4 });
  for (const chunk of ["€", "-".repeat(10), "😀"]) out.push(encode(chunk));
  assertEquals(
    out.text(),
    "€\n[... 10 bytes of output cut here; 17 bytes in total ...]\n😀\n" +
      "[the command printed 17 B: only its first 3 B and last 4 B were kept]",
  );
});
