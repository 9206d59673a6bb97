import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { RgOutput } from "../../src/tools/search/rg_output.ts";

const encoder = new TextEncoder();

function records(chunks: Uint8Array[]): string[] {
  const out = new RgOutput();
  const seen: string[] = [];
  for (const chunk of chunks) {
    out.push(
      chunk,
      "/w",
      (l) => seen.push(`${l.path}|${l.line}|${new TextDecoder().decode(l.bytes)}`),
    );
  }
  seen.push(`searched ${out.filesSearched()}`);
  return seen;
}

Deno.test("RgOutput reads records split at any byte, and the files-searched count", () => {
  const bytes = new Uint8Array([
    ...encoder.encode("/w/a b.ts\x0012:x: y\r\n/w/dir/c:d.md\x001:\n/w/odd\nname\x003:z"),
    0xff,
    ...encoder.encode(
      "\n\n12 matches\n3 matched lines\n2 files contained matches\n41 files searched\n",
    ),
  ]);
  const whole = records([bytes]);
  assertEquals(whole.slice(0, 3), ["a b.ts|12|x: y\r", "dir/c:d.md|1|", "odd\nname|3|z\ufffd"]);
  assertEquals(whole.at(-1), "searched 41");
  for (let cut = 1; cut < bytes.length; cut++) {
    assertEquals(records([bytes.subarray(0, cut), bytes.subarray(cut)]), whole, `cut at ${cut}`);
  }
});

Deno.test("RgOutput has no count until the statistics come", () => {
  const out = new RgOutput();
  out.push(encoder.encode("/w/a\x001:x\n"), "/w", () => {});
  assertEquals(out.filesSearched(), undefined);
});
