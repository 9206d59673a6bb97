// The read_file curator with a scripted model: it runs only for a file that would not fit
// comfortably, its side request repeats the conversation and adds only the outline and a
// question, ranges are accepted, nonsense rejected, the cache hit and invalidated, and it
// never returns more than the plain read.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import {
  type CuratedRead,
  curateRead,
  type CuratorContext,
  normaliseRanges,
  parseNumberedRead,
  type SidePrefix,
} from "../../src/code_index/file_curator.ts";
import { GraphStore, type StoredDefinition } from "../../src/code_index/graph_store.ts";
import { answer, ScriptedProvider } from "../../src/providers/scripted.ts";
import type { AssistantTurn } from "../../src/providers/provider.ts";
import { type Message, toolCallMessage, type ToolResult } from "../../src/messages.ts";

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

const TOOLS = [{ name: "read_file", description: "Read a file.", parameters: {} }];

/** The conversation so far, ending with the read_file call being curated. */
function prefix(question: string, room = 200): SidePrefix {
  const messages: Message[] = [
    { kind: "system", content: "You are harness." },
    { kind: "user", content: question },
    { kind: "assistant", content: "", data: {} },
    toolCallMessage({ id: "c7", name: "read_file", arguments: '{"path":"big.ts"}' }),
  ];
  return { messages, tools: TOOLS, callId: "c7", room, tokens: (t) => Math.ceil(t.length / 4) };
}

function withUsage(turn: AssistantTurn): AssistantTurn {
  return { ...turn, usage: { promptTokens: 900, completionTokens: 12, reusedTokens: 820 } };
}

function context(
  provider: ScriptedProvider,
  store: GraphStore,
  question = "fix second",
  extra: Partial<CuratorContext> = {},
): CuratorContext {
  return {
    provider,
    store,
    outline: OUTLINE,
    contextText: question,
    prefix: prefix(question),
    ...extra,
  };
}

function curated(read: Awaited<ReturnType<typeof curateRead>>): CuratedRead {
  if (read.kind !== "curated") throw new Error(`plain read: ${read.reason}`);
  return read;
}

function sideData(message: Message | undefined): string {
  if (message?.kind !== "tool_result") throw new Error("not a tool result");
  return (JSON.parse(message.content) as ToolResult).data ?? "";
}

Deno.test("curateRead() shows the outline and the ranges the model chose", async () => {
  const store = GraphStore.open(":memory:");
  const provider = new ScriptedProvider([
    withUsage(answer('```json\n{"ranges": [[60, 70], [41, 45]]}\n```')),
  ]);
  const read = curated(await curateRead("big.ts", plainRead(150), context(provider, store)));
  assertEquals(read.ranges, [[41, 45], [60, 70]]);
  match(
    read.output,
    /^Outline of big.ts \(150 lines\):\n {2}1-40: function first\n {2}41-150: function second\n/,
  );
  match(
    read.output,
    /Sections relevant to the conversation \(lines 41-45, 60-70\):\n 41: line 41\n/,
  );
  assert(!read.output.includes(" 46: line 46"));
  match(read.output, /\[Showed lines 41-45, 60-70 of 150\. .*offset 1 limit 200\.\]$/);
  assertEquals(read.usage, { promptTokens: 900, completionTokens: 12, reusedTokens: 820 });
  match(read.display, /2 sections, 16 of 150 lines \(curator processed 80 prompt tokens\)/);
  store.close();
});

Deno.test("curateRead() asks with the conversation's own prefix, the outline and a question", async () => {
  const store = GraphStore.open(":memory:");
  const provider = new ScriptedProvider([answer('{"ranges": [[41, 50]]}')]);
  const read = curated(await curateRead("big.ts", plainRead(150), context(provider, store)));
  const sent = provider.requests[0]!;
  // The conversation as it stands, then this call answered by the question: the server
  // reuses its cache for everything before it.
  assertEquals(sent.slice(0, 4), prefix("fix second").messages);
  assertEquals(sent.length, 5);
  const question = sideData(sent[4]);
  assert(!question.includes("1: line 1\n"), "the file itself is not sent");
  match(question, /Choose the lines that matter now; answer only \{"ranges": \[\[first, last\]/);
  // The result the conversation gets starts with the same outline, so the server reuses the
  // side request's work for it too.
  const outline = read.output.slice(0, read.output.indexOf("Sections relevant"));
  assert(question.startsWith(outline) && outline.startsWith("Outline of big.ts"), outline);
  store.close();
});

Deno.test("curateRead() leaves a file that fits comfortably to the plain read", async () => {
  const store = GraphStore.open(":memory:");
  const provider = new ScriptedProvider([answer('{"ranges": [[41, 50]]}')]);
  // About 440 tokens: more than half of 800 tokens left is curated, half of 1,000 is not.
  const text = plainRead(150);
  const fits = await curateRead("big.ts", text, {
    ...context(provider, store),
    prefix: prefix("fix second", Math.ceil(text.length / 4) * 2),
  });
  assertEquals(fits, { kind: "plain", reason: "fits" });
  assertEquals(provider.requests.length, 0);
  const tight = await curateRead("big.ts", text, {
    ...context(provider, store),
    prefix: prefix("fix second", Math.ceil(text.length / 4) * 2 - 2),
  });
  assertEquals(tight.kind, "curated");
  store.close();
});

Deno.test("curateRead() answers a second read from the cache", async () => {
  const store = GraphStore.open(":memory:");
  const provider = new ScriptedProvider([answer('{"ranges": [[41, 50]]}')]);
  const first = curated(await curateRead("big.ts", plainRead(150), context(provider, store)));
  const second = curated(await curateRead("big.ts", plainRead(150), context(provider, store)));
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
  const changedFile = curated(
    await curateRead("big.ts", plainRead(150, "edited"), context(provider, store)),
  );
  assertEquals(changedFile.ranges, [[1, 5]]);
  const newQuestion = curated(
    await curateRead("big.ts", plainRead(150), context(provider, store, "now fix first")),
  );
  assertEquals(newQuestion.ranges, [[100, 110]]);
  assertEquals(provider.requests.length, 3);
  store.close();
});

Deno.test("curateRead() falls back to the plain read on nonsense and errors, counting the cost", async () => {
  const store = GraphStore.open(":memory:");
  const nonsense = [
    withUsage(answer("The relevant part is the second function.")),
    answer('{"ranges": "41-50"}'),
    answer('{"ranges": [[900, 999]]}'),
    { text: "", reasoning: "", toolCalls: [], stopReason: "error" } as AssistantTurn,
  ];
  for (const [i, turn] of nonsense.entries()) {
    const provider = new ScriptedProvider([turn]);
    const read = await curateRead("big.ts", plainRead(150), context(provider, store));
    assertEquals(
      read,
      i === 0
        ? {
          kind: "plain",
          reason: "bad_answer",
          usage: { promptTokens: 900, completionTokens: 12, reusedTokens: 820 },
        }
        : { kind: "plain", reason: "bad_answer" },
    );
  }
  store.close();
});

Deno.test("curateRead() sends nothing for a short file, no outline or no conversation", async () => {
  const store = GraphStore.open(":memory:");
  const unused = new ScriptedProvider([]);
  const plain = (reason: string) => ({ kind: "plain", reason });
  assertEquals(
    await curateRead("small.ts", plainRead(99), context(unused, store)),
    plain("short"),
  );
  assertEquals(
    await curateRead("x.ts", "not a numbered read", context(unused, store)),
    plain("short"),
  );
  assertEquals(
    await curateRead("notes.md", plainRead(150), { ...context(unused, store), outline: [] }),
    plain("no_outline"),
  );
  assertEquals(
    await curateRead("big.ts", plainRead(150), { ...context(unused, store), prefix: undefined }),
    plain("no_conversation"),
  );
  assertEquals(unused.requests.length, 0);
  store.close();
});

Deno.test("curateRead() never returns more than the plain read", async () => {
  const store = GraphStore.open(":memory:");
  const provider = new ScriptedProvider([answer('{"ranges": [[1, 120]]}')]);
  const read = await curateRead("big.ts", plainRead(120), context(provider, store));
  assertEquals(read, { kind: "plain", reason: "not_shorter" });
  store.close();
});

Deno.test("normaliseRanges() and parseNumberedRead() handle the edges", () => {
  assertEquals(normaliseRanges([[10, 5], [6, 12]], 100), [[5, 12]]);
  assertEquals(normaliseRanges([[1, 400]], 500), [[1, 250]]);
  const parsed = parseNumberedRead(" 9: a\n10: b: c\n[Showing lines 9-10 of 12.]");
  assertEquals([...parsed!.entries()], [[9, "a"], [10, "b: c"]]);
});
