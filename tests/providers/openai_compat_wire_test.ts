// Canonical -> wire: what the provider sends, read back from the fake server's requests.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createOpenAICompatProvider } from "../../src/providers/openai_compat.ts";
import {
  makeToolResult,
  type Message,
  toolCallMessage,
  toolResultMessage,
} from "../../src/messages.ts";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";

const RESULT = makeToolResult({ data: "ok", now: new Date(0) });

function call(id: string, name = "ls", args = "{}"): Message {
  return toolCallMessage({ id, name, arguments: args });
}

function result(id: string, name = "ls"): Message {
  return toolResultMessage(id, name, RESULT);
}

Deno.test("createOpenAICompatProvider() sends an assistant message and its calls as one wire message", async () => {
  await using server = startFakeLlmServer([reply().text("done")]);
  const provider = createOpenAICompatProvider({
    baseUrl: server.baseUrl,
    model: "m",
    extraBody: { temperature: 0.2 },
  });
  const turn = await provider.complete({
    messages: [
      { kind: "system", content: "Be brief" },
      { kind: "user", content: "list" },
      { kind: "assistant", content: "", data: { reasoning: "secret thoughts" } },
      call("c1", "ls", '{"path":"."}'),
      call("c2", "read_file", '{"path":"a"}'),
      result("c1"),
      result("c2", "read_file"),
      { kind: "assistant", content: "Two files", data: { reasoning: "more thoughts" } },
      { kind: "user", content: "thanks" },
    ],
    tools: [],
  });
  assertEquals(turn.stopReason, "stop");
  assertEquals(server.pairingErrors, []);
  const body = server.requests[0];
  assertEquals(body?.temperature, 0.2);
  assertEquals(body?.tools, undefined);
  assertEquals(body?.messages, [
    { role: "system", content: "Be brief" },
    { role: "user", content: "list" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } },
        { id: "c2", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } },
      ],
    },
    { role: "tool", tool_call_id: "c1", content: JSON.stringify(RESULT) },
    { role: "tool", tool_call_id: "c2", content: JSON.stringify(RESULT) },
    { role: "assistant", content: "Two files" },
    { role: "user", content: "thanks" },
  ]);
  assert(!JSON.stringify(body).includes("thoughts"));
});

Deno.test("createOpenAICompatProvider() keeps assistant text next to its tool calls", async () => {
  await using server = startFakeLlmServer([reply().text("ok")]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  await provider.complete({
    messages: [
      { kind: "user", content: "go" },
      { kind: "assistant", content: "Looking", data: {} },
      call("c1"),
      result("c1"),
      // A call with no assistant message before it still forms an assistant message.
      call("c2"),
      result("c2"),
    ],
    tools: [],
  });
  assertEquals(server.pairingErrors, []);
  const wire = server.requests[0]?.messages ?? [];
  assertEquals(wire.map((m) => m.role), ["user", "assistant", "tool", "assistant", "tool"]);
  assertEquals(wire[1]?.content, "Looking");
  assertEquals(wire[3]?.content, null);
  assertEquals(wire[3]?.tool_calls?.[0]?.id, "c2");
});

Deno.test("createOpenAICompatProvider() sends arguments that are not JSON as {}", async () => {
  await using server = startFakeLlmServer([reply().text("ok")]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  await provider.complete({
    messages: [{ kind: "user", content: "go" }, call("c1", "ls", '{"path": '), result("c1")],
    tools: [],
  });
  assertEquals(server.requests[0]?.messages[1]?.tool_calls?.[0]?.function.arguments, "{}");
});

Deno.test("createOpenAICompatProvider() refuses a conversation with a call that has no result", async () => {
  await using server = startFakeLlmServer([reply().text("never")]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const turn = await provider.complete({
    messages: [{ kind: "user", content: "go" }, call("c1"), call("c2"), result("c1")],
    tools: [],
  });
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.error?.kind, "usage");
  assert(
    turn.error?.kind === "usage" && turn.error.message.includes('tool call "c2" has no result'),
  );
  assertEquals(server.requests.length, 0);
});

Deno.test("createOpenAICompatProvider() refuses a result that answers no call", async () => {
  await using server = startFakeLlmServer([]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const turn = await provider.complete({
    messages: [{ kind: "user", content: "go" }, result("ghost")],
    tools: [],
  });
  assert(turn.error?.kind === "usage" && turn.error.message.includes('"ghost"'));
  const late = await provider.complete({
    messages: [call("c1"), { kind: "user", content: "wait" }, result("c1")],
    tools: [],
  });
  assertEquals(late.stopReason, "error");
  assertEquals(server.requests.length, 0);
});

Deno.test("createOpenAICompatProvider() maps tool-call ids to 9 alphanumerics in short mode", async () => {
  await using server = startFakeLlmServer([
    reply().toolCall("ls", {}, { id: "call_from_server_1" }),
    reply().text("ok"),
  ]);
  const provider = createOpenAICompatProvider({
    baseUrl: server.baseUrl,
    model: "m",
    toolCallIds: "short",
  });
  const first = await provider.complete({ messages: [{ kind: "user", content: "go" }], tools: [] });
  const [made] = first.toolCalls;
  assert(made);
  // Canonical ids stay what the server sent; only the wire form is shortened.
  assertEquals(made.id, "call_from_server_1");
  const messages: Message[] = [
    { kind: "user", content: "go" },
    { kind: "assistant", content: "", data: {} },
    toolCallMessage(made),
    result(made.id),
    call("abcDEF123"),
    result("abcDEF123"),
  ];
  await provider.complete({ messages, tools: [] });
  assertEquals(server.pairingErrors, []);
  const wire = server.requests[1]?.messages ?? [];
  const shortId = wire[1]?.tool_calls?.[0]?.id ?? "";
  assert(/^[A-Za-z0-9]{9}$/.test(shortId), shortId);
  assertEquals(wire[2]?.tool_call_id, shortId);
  assertEquals(wire[3]?.tool_calls?.[0]?.id, "abcDEF123");
  // The mapping is stable: a second provider maps the same id alike.
  await using again = startFakeLlmServer([reply().text("ok")]);
  await createOpenAICompatProvider({ baseUrl: again.baseUrl, model: "m", toolCallIds: "short" })
    .complete({ messages, tools: [] });
  assertEquals(again.requests[0]?.messages[1]?.tool_calls?.[0]?.id, shortId);
});

Deno.test("createOpenAICompatProvider() switches to short ids after a 400 about tool-call ids", async () => {
  const mistral = {
    object: "error",
    message: "Tool call id was call_abc123 but must be a-z, A-Z, 0-9, with a length of 9.",
    type: "BadRequestError",
    param: null,
    code: 400,
  };
  await using server = startFakeLlmServer([
    reply().httpError(400, mistral),
    reply().text("first"),
    reply().text("second"),
  ]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const messages: Message[] = [
    { kind: "user", content: "go" },
    call("call_abc123"),
    result("call_abc123"),
  ];
  const turn = await provider.complete({ messages, tools: [] });
  assertEquals(turn.text, "first");
  assertEquals(server.requests.length, 2);
  assertEquals(server.requests[0]?.messages[1]?.tool_calls?.[0]?.id, "call_abc123");
  const shortId = server.requests[1]?.messages[1]?.tool_calls?.[0]?.id ?? "";
  assert(/^[A-Za-z0-9]{9}$/.test(shortId), shortId);
  // The rest of the session stays in short mode without another failed request.
  const next = await provider.complete({ messages, tools: [] });
  assertEquals(next.text, "second");
  assertEquals(server.requests[2]?.messages[1]?.tool_calls?.[0]?.id, shortId);
  assertEquals(server.pairingErrors, []);
});

Deno.test("createOpenAICompatProvider() retries a rejected id only once", async () => {
  const body = { error: { message: "Invalid tool_call_id: must be 9 characters" } };
  await using server = startFakeLlmServer([
    reply().httpError(400, body),
    reply().httpError(400, body),
  ]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const turn = await provider.complete({
    messages: [{ kind: "user", content: "go" }, call("c1"), result("c1")],
    tools: [],
  });
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.error?.kind, "provider_http");
  assertEquals(server.requests.length, 2);
});

Deno.test("createOpenAICompatProvider() pins a request's slot as llama-server's id_slot", async () => {
  await using server = startFakeLlmServer([reply().text("a"), reply().text("b")]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const messages: Message[] = [{ kind: "user", content: "hi" }];
  await provider.complete({ messages, tools: [], slot: 2 });
  await provider.complete({ messages, tools: [] });
  assertEquals(server.requests[0]?.id_slot, 2);
  assert(!("id_slot" in server.requests[1]!), "no slot asked: none sent");
});
