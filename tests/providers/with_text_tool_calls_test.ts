// Tests for the provider wrapper that turns tool-call markup in answer text into calls.

import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { driveToolCall } from "../../src/agent/call_driver.ts";
import type { ToolSchema } from "../../src/messages.ts";
import type {
  AssistantTurn,
  ModelRequest,
  Provider,
  ProviderEvent,
} from "../../src/providers/provider.ts";
import { withTextToolCalls } from "../../src/providers/with_text_tool_calls.ts";
import { repairArguments } from "../../src/agent/repair_arguments.ts";
import { EventLog, openLoopHost, RecordingApprover, toolScope } from "../helpers/loop_host.ts";

const TOOLS: ToolSchema[] = [{ name: "read_file", description: "Read a file", parameters: {} }];

/** A provider that streams its text in the given chunks, then returns `turn`. */
function chunked(chunks: string[], turn: Partial<AssistantTurn> = {}): Provider {
  return {
    name: "chunked",
    model: "m",
    complete(_request: ModelRequest, onEvent?: (event: ProviderEvent) => void) {
      for (const text of chunks) onEvent?.({ type: "text_delta", text });
      return Promise.resolve({
        text: chunks.join(""),
        reasoning: "",
        toolCalls: [],
        stopReason: "stop",
        ...turn,
      });
    },
  };
}

async function run(provider: Provider, tools = TOOLS) {
  const events: ProviderEvent[] = [];
  let n = 0;
  const turn = await withTextToolCalls(provider, { generateId: () => `id${++n}` }).complete(
    { messages: [], tools },
    (event) => events.push(event),
  );
  const shown = events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");
  return { turn, events, shown };
}

Deno.test("withTextToolCalls() turns Hermes markup into tool calls with ids", async () => {
  const { turn, events, shown } = await run(
    chunked([
      "Reading it.\n<tool",
      '_call>{"name": "read_file", ',
      '"arguments": {"path": "a"}}</tool_call>',
    ]),
  );
  assertEquals(turn.toolCalls, [{ id: "id1", name: "read_file", arguments: '{"path":"a"}' }]);
  assertEquals(turn.stopReason, "tool_calls");
  assertEquals(turn.text, "Reading it.");
  assertEquals(shown, "Reading it.\n");
  assertEquals(events.at(-1), { type: "tool_call_started", index: 0, name: "read_file" });
});

Deno.test("withTextToolCalls() moves think blocks to reasoning", async () => {
  const { turn, events } = await run(chunked(["<think>hm", "m</think>Answer."]));
  assertEquals(turn.text, "Answer.");
  assertEquals(turn.reasoning, "hmm");
  assertEquals(turn.stopReason, "stop");
  assertEquals(events, [
    { type: "reasoning_delta", text: "hm" },
    { type: "reasoning_delta", text: "m" },
    { type: "text_delta", text: "Answer." },
  ]);
});

Deno.test("withTextToolCalls() keeps structured calls and leaves their text alone", async () => {
  const native = [{ id: "c1", name: "read_file", arguments: "{}" }];
  const text = '<tool_call>{"name": "read_file", "arguments": {}}</tool_call>';
  const { turn } = await run(chunked([text], { toolCalls: native, stopReason: "tool_calls" }));
  assertEquals(turn.toolCalls, native);
  assertEquals(turn.text, text);
});

Deno.test("withTextToolCalls() leaves unknown tools as text", async () => {
  const text = '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>';
  const { turn, shown } = await run(chunked([text]));
  assertEquals(turn.toolCalls, []);
  assertEquals(turn.stopReason, "stop");
  assertEquals(turn.text, text);
  assertEquals(shown, text);
});

Deno.test("withTextToolCalls() does not parse calls from a failed turn", async () => {
  const text = '<tool_call>{"name": "read_file", "arguments": {}}</tool_call>';
  const error = { kind: "provider_stream", baseUrl: "x", message: "cut" } as const;
  const { turn, shown } = await run(chunked([text], { stopReason: "error", error }));
  assertEquals(turn.toolCalls, []);
  assertEquals(turn.stopReason, "error");
  assertEquals(shown, "");
});

Deno.test("withTextToolCalls() keeps the provider's name and model", () => {
  const wrapped = withTextToolCalls(chunked([]));
  assertEquals([wrapped.name, wrapped.model], ["chunked", "m"]);
});

Deno.test("withTextToolCalls() over Ollama turns content markup into calls", async () => {
  const { createOllamaProvider } = await import("../../src/providers/ollama.ts");
  const { ollamaReply, startFakeOllama } = await import("../helpers/fake_ollama_server.ts");
  await using server = startFakeOllama();
  server.script(
    ollamaReply().text(
      "<tool_",
      'call>\n{"name": "read_file", "arguments": {"path": "x"}}\n</tool_call>',
    )
      .done("stop"),
  );
  const provider = createOllamaProvider({ baseUrl: server.url, model: "qwen3" });
  const { turn, shown } = await run(provider);
  assertEquals(turn.stopReason, "tool_calls");
  assertEquals(turn.toolCalls, [{ id: "id1", name: "read_file", arguments: '{"path":"x"}' }]);
  assertEquals([turn.text, shown], ["", ""]);
});

/** Malformed `<tool_call>` JSON, streamed in pieces, then driven like the loop drives a call. */
const MALFORMED: { name: string; chunks: string[]; result: string }[] = [
  {
    name: "single quotes",
    chunks: ["<tool_call>{'name': 'ec", "ho', 'arguments': {'text': 'hi'}}</tool_call>"],
    result: "ok: hi",
  },
  {
    name: "trailing commas and </tool_call> in a string",
    chunks: [
      '<tool_call>{"name": "echo", "arguments": {"text": "</tool',
      '_call>",},}</tool_call>',
    ],
    result: "ok: </tool_call>",
  },
  {
    name: "a missing comma",
    chunks: ['<tool_call>{"name": "echo", "arguments": {"text": "a" "b"}}', "</tool_call>"],
    result: "parse_error: Arguments are not valid JSON",
  },
];

for (const c of MALFORMED) {
  Deno.test(`withTextToolCalls() makes a call of <tool_call> JSON with ${c.name}`, async () => {
    await using h = await openLoopHost();
    const tools = h.host.list().map(({ name, description, parameters }) => ({
      name,
      description,
      parameters,
    }));
    const { turn, shown } = await run(chunked(c.chunks), tools);
    assertEquals([turn.stopReason, turn.text, shown], ["tool_calls", "", ""]);
    const options = {
      tools: toolScope(h.host),
      approver: new RecordingApprover(),
      sink: new EventLog().sink,
      state: {},
      parseArguments: repairArguments,
    };
    const driven = await driveToolCall(turn.toolCalls[0]!, options, new AbortController().signal);
    const said = driven.result!;
    const result = said.success ? `ok: ${said.data}` : `${said.error_type}: ${said.error_message}`;
    ok(result.startsWith(c.result), result);
    if (!said.success) ok(result.endsWith('Call "echo" again'), result);
  });
}

Deno.test("withTextToolCalls() reads only the families it is given", async () => {
  const kimi = '<|tool_call_begin|>read_file:0<|tool_call_argument_begin|>{"path": "k"}' +
    "<|tool_call_end|>";
  const wrapped = (families: ("kimi" | "hermes")[]) =>
    withTextToolCalls(chunked([kimi.slice(0, 30), kimi.slice(30)]), { families });
  const request = { messages: [], tools: TOOLS };
  const read = await wrapped(["kimi"]).complete(request);
  assertEquals(read.toolCalls.map((call) => call.arguments), ['{"path":"k"}']);
  const left = await wrapped(["hermes"]).complete(request);
  assertEquals([left.toolCalls, left.text], [[], kimi]);
});

Deno.test("withTextToolCalls() reads the formats Ollama's chat template names", async () => {
  const { createOllamaProvider } = await import("../../src/providers/ollama.ts");
  const { ollamaReply, startFakeOllama } = await import("../helpers/fake_ollama_server.ts");
  const template = "{{ range .ToolCalls }}<tool_call>{{ .Function.Name }}\n" +
    "{{ range $k, $v := .Function.Arguments }}<arg_key>{{ $k }}</arg_key>\n" +
    "<arg_value>{{ $v }}</arg_value>\n{{ end }}</tool_call>{{ end }}";
  await using server = startFakeOllama({ models: [{ name: "glm-4.6", template }] });
  const glm = "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_value>\n" +
    "</tool_call>";
  const llama = 'Like {"name": "read_file", "parameters": {"path": "b.md"}}';
  server.script(ollamaReply().text(glm.slice(0, 20), glm.slice(20)).done("stop"));
  server.script(ollamaReply().text(llama).done("stop"));
  const provider = createOllamaProvider({ baseUrl: server.url, model: "glm-4.6" });
  const info = await provider.inspect();
  ok(info.ok && info.value.template === template);
  const wrapped = withTextToolCalls(provider, { chatTemplate: info.value.template });
  const request = { messages: [], tools: TOOLS };
  const call = await wrapped.complete(request);
  assertEquals(call.toolCalls.map((c) => [c.name, c.arguments]), [[
    "read_file",
    '{"path":"a.md"}',
  ]]);
  // GLM's template names no Llama JSON, so the object in prose stays text.
  const prose = await wrapped.complete(request);
  assertEquals([prose.toolCalls, prose.text], [[], llama]);
});
