import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { type GrepOptions, grepTree } from "../../src/tools/search/grep_files.ts";
import { compileSearchPattern, patternToRegExp } from "../../src/tools/search/search_pattern.ts";
import { makeToolContext } from "../helpers/tool_context.ts";
import { hasCommand } from "../helpers/system_commands.ts";

function grep(workspace: string, pattern: string, more: Partial<GrepOptions> = {}) {
  return grepTree(workspace, "", {
    pattern,
    caseSensitive: false,
    maxResults: 100,
    includeHidden: false,
    respectGitignore: true,
    ...more,
  });
}

Deno.test("grepTree() finds a literal that spans the 64 KiB and 1 MiB read boundaries", async () => {
  await using ctx = await makeToolContext();
  const needle = "SpanningNeedleText";
  // Put the needle across byte 65,536 and across byte 1,048,576 (where the buffer grows).
  const filler = (n: number) =>
    `${"x".repeat(99)}\n`.repeat(Math.floor(n / 100)) + "y".repeat(n % 100);
  const first = 65_536 - 5;
  const second = 1_048_576 - 7;
  const text = filler(first) + needle + filler(second - first - needle.length) + needle +
    filler(1_500_000);
  await ctx.write({ "big.txt": text });
  const lineOf = (at: number) => text.slice(0, at).split("\n").length;
  for (const caseSensitive of [true, false]) {
    const found = grep(ctx.workspace, needle.toLowerCase(), { caseSensitive });
    if (caseSensitive) {
      assertEquals(found.matches.length, 0);
      continue;
    }
    assertEquals(found.matches.map((m) => m.line), [lineOf(first), lineOf(second)]);
  }
  const exact = grep(ctx.workspace, needle, { caseSensitive: true });
  assertEquals(exact.matches.map((m) => m.line), [lineOf(first), lineOf(second)]);
});

Deno.test("grepTree() skips a file with a NUL in its first 64 KiB and stops at a later one, as ripgrep", async () => {
  await using ctx = await makeToolContext();
  const encoder = new TextEncoder();
  await Deno.writeFile(`${ctx.workspace}/early.bin`, encoder.encode("needle\0rest"));
  await Deno.writeFile(
    `${ctx.workspace}/late.txt`,
    encoder.encode(`${"a\n".repeat(4100)}needle\n\0`),
  );
  await Deno.writeFile(
    `${ctx.workspace}/later.txt`,
    encoder.encode(`needle\n${"b".repeat(100_000)}\nneedle\0needle\nneedle\n`),
  );
  const found = grep(ctx.workspace, "needle");
  assertEquals(found.matches.map((m) => `${m.path}:${m.line}`), ["later.txt:1"]);
  assertEquals(found.filesSearched, 3); // binary files count as searched
});

Deno.test("grepTree() stops reading files once max_results is exceeded", async () => {
  await using ctx = await makeToolContext({ "a.txt": "hit\n", "b.txt": "hit\n", "c.txt": "hit\n" });
  const found = grep(ctx.workspace, "hit", { maxResults: 1 });
  assertEquals(found.matches.map((m) => m.path), ["a.txt"]);
  assert(found.truncated);
  assertEquals(found.filesSearched, 2); // c.txt was never read
});

Deno.test({
  name: "grepTree() skips FIFOs instead of blocking on them",
  ignore: !hasCommand("mkfifo"),
}, async () => {
  await using ctx = await makeToolContext({ "a.txt": "needle" });
  const made = new Deno.Command("mkfifo", { args: [`${ctx.workspace}/pipe`] }).outputSync();
  assert(made.success, "mkfifo failed");
  assertEquals(grep(ctx.workspace, "needle").matches.map((m) => m.path), ["a.txt"]);
});

Deno.test("grepTree() gives the same lines through the byte search and the regex", async () => {
  await using ctx = await makeToolContext({
    "a.txt": "Deprecated since 1.0\nnothing\nDEPRECATED — sínce\n",
    "b.md": "é deprecated é since\r\nxdeprecatedy\n",
    "c.txt": "deprecate\nd since\n",
  });
  // 10 letters: searched in the bytes; the 7-letter variant goes through the regex.
  const long = grep(ctx.workspace, "deprecated*s");
  assertEquals(long.matches.map((m) => `${m.path}:${m.line}: ${m.text}`), [
    "a.txt:1: Deprecated since 1.0",
    "a.txt:3: DEPRECATED — sínce",
    "b.md:1: é deprecated é since",
  ]);
  const short = grep(ctx.workspace, "precate*s");
  assertEquals(short.matches, long.matches);
});

/** A small deterministic PRNG (mulberry32), so the comparison below is repeatable. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("compileSearchPattern() byte test agrees with a case-insensitive regex on the decoded text", () => {
  const next = random(7);
  // Kelvin sign and long s upper-case to ASCII letters but never match them without `u`.
  const alphabet = [
    "a",
    "A",
    "b",
    "B",
    "k",
    "K",
    "s",
    "S",
    "\u212a",
    "\u017f",
    "é",
    "\0",
    "\n",
    "-",
  ];
  const encoder = new TextEncoder();
  let checked = 0;
  for (let round = 0; round < 300; round++) {
    const needle = Array.from({ length: 8 + Math.floor(next() * 4) }, () => {
      return ["a", "b", "k", "s", "-"][Math.floor(next() * 5)]!;
    }).join("");
    const { mayMatchBytes } = compileSearchPattern(needle, false);
    assert(mayMatchBytes !== undefined, needle);
    const regex = patternToRegExp(needle, false);
    for (let k = 0; k < 20; k++) {
      let text = Array.from(
        { length: Math.floor(next() * 60) },
        () => alphabet[Math.floor(next() * alphabet.length)]!,
      ).join("");
      if (next() < 0.3) {
        const variant = [...needle].map((c) => (next() < 0.5 ? c.toUpperCase() : c)).join("");
        const at = Math.floor(next() * text.length);
        text = text.slice(0, at) + variant + text.slice(at);
      }
      regex.lastIndex = 0;
      assertEquals(mayMatchBytes(encoder.encode(text)), regex.test(text), `${needle} in ${text}`);
      checked++;
    }
  }
  assertEquals(checked, 6000);
});
