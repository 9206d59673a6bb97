// Wire -> canonical: what real servers stream, replayed by the fake server over real HTTP.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createOpenAICompatProvider } from "../../src/providers/openai_compat.ts";
import type { AssistantTurn, ProviderEvent } from "../../src/providers/provider.ts";
import type { Message } from "../../src/messages.ts";
import { chunk, reply, type ReplyBuilder, startFakeLlmServer } from "../helpers/fake_llm_server.ts";

const USER: Message[] = [{ kind: "user", content: "hi" }];

async function run(
  script: ReplyBuilder[],
  messages: Message[] = USER,
): Promise<{ turn: AssistantTurn; events: ProviderEvent[]; body: Record<string, unknown> }> {
  await using server = startFakeLlmServer(script);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const events: ProviderEvent[] = [];
  const turn = await provider.complete(
    {
      messages,
      tools: [{ name: "read_file", description: "Read a file", parameters: { type: "object" } }],
    },
    // Bytes received are counted for the turn's output cap, not shown.
    (event) => event.type !== "received" && events.push(event),
  );
  assertEquals(server.pairingErrors, []);
  return { turn, events, body: server.requests[0] ?? {} };
}

function calls(turn: AssistantTurn): [string, string][] {
  return turn.toolCalls.map((call) => [call.name, call.arguments]);
}

Deno.test("createOpenAICompatProvider() streams text deltas and reads usage-only chunks", async () => {
  const { turn, events, body } = await run([
    reply().text("Hello there", { chunks: 3 }).usage(12, 3),
  ]);
  assertEquals(turn.text, "Hello there");
  assertEquals(turn.stopReason, "stop");
  assertEquals(turn.usage, { promptTokens: 12, completionTokens: 3 });
  assertEquals(turn.toolCalls, []);
  assertEquals(events.map((e) => e.type === "text_delta" ? e.text : "?").join(""), "Hello there");
  assertEquals(events.length, 3);
  assertEquals(body.stream, true);
  assertEquals(body.stream_options, { include_usage: true });
  assertEquals(body.model, "m");
  assertEquals(body.tools, [{
    type: "function",
    function: { name: "read_file", description: "Read a file", parameters: { type: "object" } },
  }]);
});

Deno.test("createOpenAICompatProvider() accumulates tool-call deltas by index", async () => {
  const { turn, events } = await run([
    reply().rawFrames([
      chunk({
        tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "read_file" } }],
      }),
      chunk({ tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "ls" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"a"}' } }] }),
    ]),
  ]);
  assertEquals(turn.stopReason, "tool_calls");
  assertEquals(turn.toolCalls, [
    { id: "a", name: "read_file", arguments: '{"path":"a"}' },
    { id: "b", name: "ls", arguments: "{}" },
  ]);
  assertEquals(events, [
    { type: "tool_call_started", index: 0, name: "read_file" },
    { type: "tool_call_started", index: 1, name: "ls" },
  ]);
});

Deno.test("createOpenAICompatProvider() joins arguments split over many deltas", async () => {
  const { turn } = await run([reply().toolCall("read_file", { path: "src/x.ts" }, { split: 7 })]);
  assertEquals(calls(turn), [["read_file", '{"path":"src/x.ts"}']]);
  assertEquals(turn.toolCalls[0]?.id, "call_fake_1");
});

Deno.test("createOpenAICompatProvider() starts a new call when the id at an index changes", async () => {
  const { turn } = await run([
    reply().rawFrames([
      chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "ls", arguments: "{}" } }] }),
      chunk({
        tool_calls: [{ index: 0, id: "b", function: { name: "read_file", arguments: "" } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"b"}' } }] }),
    ]),
  ]);
  assertEquals(turn.toolCalls, [
    { id: "a", name: "ls", arguments: "{}" },
    { id: "b", name: "read_file", arguments: '{"path":"b"}' },
  ]);
});

Deno.test("createOpenAICompatProvider() stringifies arguments sent as an object", async () => {
  const { turn } = await run([
    reply().toolCall("read_file", { path: "a" }, { argsAsObject: true }),
  ]);
  assertEquals(calls(turn), [["read_file", '{"path":"a"}']]);
});

Deno.test("createOpenAICompatProvider() generates an id when it is missing or empty", async () => {
  const { turn } = await run([
    reply().toolCall("ls", {}, { id: null }).toolCall("ls", { path: "b" }, { id: "" }),
  ]);
  assertEquals(turn.toolCalls.length, 2);
  const [first, second] = turn.toolCalls;
  assert(/^call_[A-Za-z0-9]{24}$/.test(first?.id ?? ""), first?.id);
  assert(/^call_[A-Za-z0-9]{24}$/.test(second?.id ?? ""), second?.id);
  assert(first?.id !== second?.id);
});

Deno.test("createOpenAICompatProvider() accepts tool calls without a type", async () => {
  const { turn } = await run([
    reply().rawFrames([
      chunk({
        tool_calls: [{ index: 0, id: "x", function: { name: "ls", arguments: '{"a":1}' } }],
      }),
    ]),
  ]);
  assertEquals(turn.toolCalls, [{ id: "x", name: "ls", arguments: '{"a":1}' }]);
});

Deno.test("createOpenAICompatProvider() handles a name-only first delta", async () => {
  const { turn } = await run([
    reply().rawFrames([
      chunk({ tool_calls: [{ index: 0, id: "x", type: "function", function: { name: "ls" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"."}' } }] }),
    ]),
  ]);
  assertEquals(calls(turn), [["ls", '{"path":"."}']]);
});

Deno.test("createOpenAICompatProvider() sends no-argument calls as {}", async () => {
  const { turn } = await run([
    reply().rawFrames([
      chunk({ tool_calls: [{ index: 0, id: "x", function: { name: "ls", arguments: "" } }] }),
    ]),
  ]);
  assertEquals(calls(turn), [["ls", "{}"]]);
});

Deno.test("createOpenAICompatProvider() reads argument bytes in the finish chunk", async () => {
  const { turn } = await run([
    reply().finish(null).rawFrames([
      chunk({ tool_calls: [{ index: 0, id: "x", function: { name: "ls", arguments: '{"pa' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"."}' } }] }, "tool_calls"),
    ]),
  ]);
  assertEquals(turn.stopReason, "tool_calls");
  assertEquals(calls(turn), [["ls", '{"path":"."}']]);
});

Deno.test("createOpenAICompatProvider() ignores whole arguments repeated in the finish chunk", async () => {
  const { turn } = await run([
    reply().finish(null).rawFrames([
      chunk({
        tool_calls: [{ index: 0, id: "x", function: { name: "ls", arguments: '{"a":1}' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] }, "tool_calls"),
    ]),
  ]);
  assertEquals(calls(turn), [["ls", '{"a":1}']]);
});

Deno.test("createOpenAICompatProvider() treats finish_reason stop with tool calls as tool calls", async () => {
  const { turn } = await run([reply().toolCall("ls", {}).finish("stop")]);
  assertEquals(turn.stopReason, "tool_calls");
  assertEquals(calls(turn), [["ls", "{}"]]);
});

Deno.test("createOpenAICompatProvider() accepts content null and empty", async () => {
  const { turn, events } = await run([
    reply().rawFrames([
      chunk({ role: "assistant", content: null }),
      chunk({ content: "" }),
      chunk({ content: "ok" }),
      chunk({ content: null, tool_calls: [{ index: 0, id: "x", function: { name: "ls" } }] }),
    ]),
  ]);
  assertEquals(turn.text, "ok");
  assertEquals(calls(turn), [["ls", "{}"]]);
  assertEquals(events.filter((e) => e.type === "text_delta").length, 1);
});

Deno.test("createOpenAICompatProvider() reads reasoning from reasoning_content and reasoning", async () => {
  const a = await run([reply().reasoning("Let me think", { chunks: 2 }).text("Done")]);
  assertEquals(a.turn.reasoning, "Let me think");
  assertEquals(a.turn.text, "Done");
  assertEquals(a.events.filter((e) => e.type === "reasoning_delta").length, 2);
  const b = await run([reply().reasoning("Hmm", { field: "reasoning" }).text("Yes")]);
  assertEquals(b.turn.reasoning, "Hmm");
  assertEquals(b.events[0], { type: "reasoning_delta", text: "Hmm" });
});

Deno.test("createOpenAICompatProvider() handles many calls in one response", async () => {
  let script = reply().text("Reading all of them");
  for (let i = 0; i < 12; i++) {
    script = script.toolCall("read_file", { path: `f${i}` }, { split: 3 });
  }
  const { turn, events } = await run([script]);
  assertEquals(turn.toolCalls.length, 12);
  assertEquals(
    turn.toolCalls.map((c) => c.arguments),
    [...Array(12).keys()].map((i) => `{"path":"f${i}"}`),
  );
  assertEquals(new Set(turn.toolCalls.map((c) => c.id)).size, 12);
  assertEquals(events.filter((e) => e.type === "tool_call_started").length, 12);
});

Deno.test("createOpenAICompatProvider() accepts tool-call deltas without an index", async () => {
  const { turn } = await run([
    reply().rawFrames([
      chunk({ tool_calls: [{ id: "a", function: { name: "ls", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ id: "b", function: { name: "read_file", arguments: '{"path"' } }] }),
      chunk({ tool_calls: [{ function: { arguments: ':"x"}' } }] }),
    ]),
  ]);
  assertEquals(turn.toolCalls, [
    { id: "a", name: "ls", arguments: "{}" },
    { id: "b", name: "read_file", arguments: '{"path":"x"}' },
  ]);
});

Deno.test("createOpenAICompatProvider() replaces an id already used in the conversation", async () => {
  const history: Message[] = [
    { kind: "user", content: "hi" },
    { kind: "assistant", content: "", data: {} },
    { kind: "tool_call", content: "ls {}", data: { id: "call_0", name: "ls", arguments: "{}" } },
    {
      kind: "tool_result",
      content: "{}",
      data: {
        callId: "call_0",
        name: "ls",
        result: {
          success: true,
          data: "",
          error_message: null,
          error_type: "none",
          metadata: { execution_time_ms: 0, data_size_bytes: 0, timestamp: 0 },
        },
      },
    },
  ];
  const { turn } = await run([reply().toolCall("ls", {}, { id: "call_0" })], history);
  assertEquals(turn.toolCalls.length, 1);
  assert(turn.toolCalls[0]?.id !== "call_0");
});

Deno.test("createOpenAICompatProvider() accepts a stream without [DONE] after a finish_reason", async () => {
  const { turn } = await run([reply().text("fine").noDone()]);
  assertEquals(turn.stopReason, "stop");
  assertEquals(turn.text, "fine");
});

Deno.test("createOpenAICompatProvider() reports a stream that ends without a finish_reason", async () => {
  const { turn } = await run([reply().text("half").toolCall("ls", {}).finish(null).noDone()]);
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.toolCalls, []);
  assertEquals(turn.text, "half");
  assertEquals(turn.error?.kind, "provider_stream");
  assert(turn.error?.kind === "provider_stream" && /finish_reason/.test(turn.error.message));
});

Deno.test("createOpenAICompatProvider() returns the server's message for an error frame mid-stream", async () => {
  const { turn } = await run([
    reply().text("par").toolCall("ls", {}).finish(null).rawFrames([
      { error: { message: "model crashed while generating", type: "server_error" } },
    ]),
  ]);
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.toolCalls, []);
  assertEquals(turn.error, {
    kind: "provider_stream",
    baseUrl: turn.error?.kind === "provider_stream" ? turn.error.baseUrl : "",
    message: "the server reported: model crashed while generating",
  });
});

Deno.test("createOpenAICompatProvider() maps a llama.cpp error frame with a code to provider_http", async () => {
  const { turn } = await run([
    reply().finish(null).rawFrames([
      {
        error: {
          code: 400,
          message: "the request exceeds the available context size",
          type: "exceed_context_size_error",
        },
      },
    ]),
  ]);
  assertEquals(turn.stopReason, "error");
  assert(turn.error?.kind === "provider_http", JSON.stringify(turn.error));
  assertEquals(turn.error.status, 400);
  assert(turn.error.message.startsWith("the request exceeds the available context size: "));
});

Deno.test("createOpenAICompatProvider() reports a dropped connection and returns no calls", async () => {
  const { turn } = await run([
    reply().text("some").toolCall("ls", {}, { split: 2 }).dropConnection(3),
  ]);
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.toolCalls, []);
  assertEquals(turn.error?.kind, "provider_stream");
});

Deno.test("createOpenAICompatProvider() reports malformed JSON in a frame", async () => {
  const { turn } = await run([reply().rawFrames(["{not json"])]);
  assertEquals(turn.stopReason, "error");
  assert(turn.error?.kind === "provider_stream" && /malformed JSON/.test(turn.error.message));
});

Deno.test("createOpenAICompatProvider() drops calls cut by the length limit", async () => {
  const { turn } = await run([reply().text("t").toolCall("ls", '{"pa').finish("length")]);
  assertEquals(turn.stopReason, "length");
  assertEquals(turn.toolCalls, []);
  assertEquals(turn.text, "t");
});
