// The read_file curator with a scripted model: ranges accepted, nonsense rejected, the cache
// hit, invalidation on a changed file and on a new user message, fallback on failure.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import {
  curateRead,
  normaliseRanges,
  parseNumberedRead,
} from "../../src/code_index/file_curator.ts";
import { GraphStore, type StoredDefinition } from "../../src/code_index/graph_store.ts";
import { answer, ScriptedProvider } from "../../src/providers/scripted.ts";
import type { AssistantTurn } from "../../src/providers/provider.ts";

function plainRead(lines: number, word = "line"): string {
  const width = String(lines).length;
  return Array.from(
    { length: lines },
    (_, i) => `${String(i + 1).padStart(width)}: ${word} ${i + 1}`,
  )
    .join("\n");
}

const OUTLINE: StoredDefinition[] = [
  {
    path: "big.ts",
    name: "first",
    kind: "function",
    line: 1,
    endLine: 40,
    signature: "function first() {",
  },
  {
    path: "big.ts",
    name: "second",
    kind: "function",
    line: 41,
    endLine: 150,
    signature: "function second() {",
  },
];

function withUsage(turn: AssistantTurn): AssistantTurn {
  return { ...turn, usage: { promptTokens: 900, completionTokens: 12 } };
}

function context(provider: ScriptedProvider, store: GraphStore, question = "fix second") {
  return { provider, store, outline: OUTLINE, recentText: question, contextText: question };
}

Deno.test("curateRead() shows the outline and the ranges the model chose", async () => {
  const store = GraphStore.open(":memory:");
  const provider = new ScriptedProvider([
    withUsage(answer('```json\n{"ranges": [[60, 70], [41, 45]]}\n```')),
  ]);
  const curated = await curateRead("big.ts", plainRead(150), context(provider, store));
  assert(curated);
  assertEquals(curated.ranges, [[41, 45], [60, 70]]);
  match(
    curated.output,
    /^Outline of big.ts \(150 lines\):\n {2}1-40: function first\n {2}41-150: function second\n/,
  );
  match(
    curated.output,
    /Sections relevant to the conversation \(lines 41-45, 60-70\):\n 41: line 41\n/,
  );
  assert(!curated.output.includes(" 46: line 46"));
  match(curated.output, /\[Showed lines 41-45, 60-70 of 150\. .*offset 1 limit 200\.\]$/);
  assertEquals(curated.usage, { promptTokens: 900, completionTokens: 12 });
  match(curated.display, /2 sections, 16 of 150 lines \(curator used 912 tokens\)/);
  // The side request offered no tools and carried the numbered file.
  const request = provider.requests[0]!;
  assertEquals(request[0]!.kind, "system");
  match(request[1]!.content, /File big.ts \(150 lines\):\n {2}1: line 1/);
  store.close();
});

Deno.test("curateRead() answers a second read from the cache", async () => {
  const store = GraphStore.open(":memory:");
  const provider = new ScriptedProvider([answer('{"ranges": [[41, 50]]}')]);
  const first = await curateRead("big.ts", plainRead(150), context(provider, store));
  const second = await curateRead("big.ts", plainRead(150), context(provider, store));
  assert(first && second);
  assertEquals(second.cached, true);
  assertEquals(second.ranges, first.ranges);
  assertEquals(provider.requests.length, 1);
  match(second.display, /\(curator cache\)/);
  store.close();
});

Deno.test("curateRead() asks again when the file or the user's question changes", async () => {
  const store = GraphStore.open(":memory:");
  const provider = new ScriptedProvider([
    answer('{"ranges": [[41, 50]]}'),
    answer('{"ranges": [[1, 5]]}'),
    answer('{"ranges": [[100, 110]]}'),
  ]);
  await curateRead("big.ts", plainRead(150), context(provider, store));
  const changedFile = await curateRead(
    "big.ts",
    plainRead(150, "edited"),
    context(provider, store),
  );
  assertEquals(changedFile?.ranges, [[1, 5]]);
  const newQuestion = await curateRead(
    "big.ts",
    plainRead(150),
    context(provider, store, "now fix first"),
  );
  assertEquals(newQuestion?.ranges, [[100, 110]]);
  assertEquals(provider.requests.length, 3);
  store.close();
});

Deno.test("curateRead() falls back to the plain read on nonsense, errors and short files", async () => {
  const store = GraphStore.open(":memory:");
  const nonsense = [
    answer("The relevant part is the second function."),
    answer('{"ranges": "41-50"}'),
    answer('{"ranges": [[900, 999]]}'),
    { text: "", reasoning: "", toolCalls: [], stopReason: "error" } as AssistantTurn,
  ];
  for (const turn of nonsense) {
    const provider = new ScriptedProvider([turn]);
    assertEquals(await curateRead("big.ts", plainRead(150), context(provider, store)), undefined);
  }
  const unused = new ScriptedProvider([]);
  assertEquals(await curateRead("small.ts", plainRead(99), context(unused, store)), undefined);
  assertEquals(unused.requests.length, 0);
  assertEquals(await curateRead("x.ts", "not a numbered read", context(unused, store)), undefined);
  store.close();
});

Deno.test("curateRead() sends only the outline when the file would not fit the window", async () => {
  const store = GraphStore.open(":memory:");
  const provider = new ScriptedProvider([answer('{"ranges": [[41, 50]]}')]);
  await curateRead("big.ts", plainRead(2000), { ...context(provider, store), contextWindow: 2048 });
  const sent = provider.requests[0]![1]!.content;
  match(sent, /Outline \(definitions with their lines\):\n1-40: function first\(\) \{/);
  assert(!sent.includes("1999: line 1999"));
  store.close();
});

Deno.test("normaliseRanges() and parseNumberedRead() handle the edges", () => {
  assertEquals(normaliseRanges([[10, 5], [6, 12]], 100), [[5, 12]]);
  assertEquals(normaliseRanges([[1, 400]], 500), [[1, 250]]);
  const parsed = parseNumberedRead(" 9: a\n10: b: c\n[Showing lines 9-10 of 12.]");
  assertEquals([...parsed!.entries()], [[9, "a"], [10, "b: c"]]);
});
