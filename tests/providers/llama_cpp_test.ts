// Tests of the in-process llama.cpp provider. Inference tests run a real scripted GGUF model
// (tests/fixtures/make_scripted_gguf.ts) through node-llama-cpp; they are ignored, with a
// printed reason, when `deno task install-llama` has not been run.

import { join } from "node:path";
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createLlamaCppProvider, type LlamaCppProvider } from "../../src/providers/llama_cpp.ts";
import { toChatHistory } from "../../src/providers/llama_cpp/chat_history.ts";
import {
  dropOptionalNulls,
  toGrammarSchema,
} from "../../src/providers/llama_cpp/function_schema.ts";
import {
  installedVersion,
  NODE_LLAMA_CPP_VERSION,
} from "../../src/providers/llama_cpp/node_llama_cpp.ts";
import {
  makeToolResult,
  type Message,
  toolCallMessage,
  toolResultMessage,
  type ToolSchema,
} from "../../src/messages.ts";
import type { ProviderEvent } from "../../src/providers/provider.ts";
import { type ScriptedModelOptions, writeScriptedGguf } from "../fixtures/make_scripted_gguf.ts";

const installed = await installedVersion() === NODE_LLAMA_CPP_VERSION;
const NOT_INSTALLED = "node-llama-cpp is not installed (run `deno task install-llama`)";
if (!installed) console.warn(`llama_cpp_test.ts: inference tests ignored: ${NOT_INSTALLED}`);

const READ_FILE: ToolSchema = {
  name: "read_file",
  description: "Read a text file in the workspace.",
  parameters: {
    type: "object",
    properties: { path: { type: "string", description: "Workspace-relative path" } },
    required: ["path"],
    additionalProperties: false,
  },
};

const CALLS_THEN_ANSWERS: ScriptedModelOptions = {
  onUser: { toolCall: { name: "read_file", argumentsJson: '{"path": "notes.txt"}' } },
  onToolResult: { text: "The notes say hello." },
};

/** Defines an inference test: ignored without node-llama-cpp; native handles outlive ops. */
function inferenceTest(name: string, fn: () => Promise<void>): void {
  Deno.test({
    name: installed ? name : `${name} [ignored: ${NOT_INSTALLED}]`,
    ignore: !installed,
    sanitizeOps: false,
    sanitizeResources: false,
    fn,
  });
}

/** Writes a scripted model to a temp dir, loads it, runs `fn`, and frees everything. */
async function withModel(
  script: ScriptedModelOptions,
  fn: (provider: LlamaCppProvider) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "llama_cpp_test_" });
  try {
    const modelFile = join(dir, "scripted.gguf");
    await writeScriptedGguf(modelFile, script);
    const loaded = await createLlamaCppProvider({ modelFile, gpu: "off", threads: 1 });
    if (!loaded.ok) throw new Error(loaded.error.message);
    try {
      await fn(loaded.value);
    } finally {
      await loaded.value.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function conversation(): Message[] {
  return [
    { kind: "system", content: "You are a coding agent." },
    { kind: "user", content: "What do my notes say?" },
  ];
}

// ---------------------------------------------------------------- load errors (no library)

Deno.test("createLlamaCppProvider() reports a missing file in one line", async () => {
  const result = await createLlamaCppProvider({ modelFile: "does-not-exist.gguf" });
  assert(!result.ok);
  assertEquals(result.error, {
    kind: "usage",
    message: 'Cannot load model file "does-not-exist.gguf": no such file',
  });
});

Deno.test("createLlamaCppProvider() rejects a file that is not GGUF", async () => {
  const file = await Deno.makeTempFile({ suffix: ".gguf" });
  try {
    await Deno.writeTextFile(file, "not a model");
    const result = await createLlamaCppProvider({ modelFile: file });
    assert(!result.ok);
    assertEquals(result.error.message, `Cannot load model file "${file}": not a GGUF file`);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("createLlamaCppProvider() rejects a directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const result = await createLlamaCppProvider({ modelFile: dir });
    assert(!result.ok);
    assertEquals(result.error.message, `Cannot load model file "${dir}": is a directory`);
  } finally {
    await Deno.remove(dir);
  }
});

// ---------------------------------------------------------------- conversions (no library)

Deno.test("toChatHistory() puts calls, results and later text in one model item", () => {
  const call = { id: "c1", name: "read_file", arguments: '{"path":"a.txt"}' };
  const denied = makeToolResult({ errorType: "permission_denied", errorMessage: "Denied by user" });
  const history = toChatHistory([
    { kind: "system", content: "sys" },
    { kind: "user", content: "read a.txt" },
    { kind: "assistant", content: "Let me look.", data: {} },
    toolCallMessage(call),
    toolResultMessage("c1", "read_file", denied),
  ]);
  assertEquals(history.length, 3);
  assertEquals(history[0], { type: "system", text: "sys" });
  assertEquals(history[1], { type: "user", text: "read a.txt" });
  const model = history[2];
  assert(model?.type === "model");
  assertEquals(model.response[0], "Let me look.");
  const fnCall = model.response[1];
  assert(typeof fnCall === "object" && fnCall.type === "functionCall");
  assertEquals(fnCall.name, "read_file");
  assertEquals(fnCall.params, { path: "a.txt" });
  assertEquals(fnCall.startsNewChunk, true);
  assertEquals((fnCall.result as { error_type: string }).error_type, "permission_denied");
});

Deno.test("toChatHistory() ends with an empty model item after a user message", () => {
  const history = toChatHistory([
    { kind: "user", content: "one" },
    { kind: "assistant", content: "two", data: {} },
    { kind: "user", content: "three" },
  ]);
  assertEquals(history, [
    { type: "user", text: "one" },
    { type: "model", response: ["two"] },
    { type: "user", text: "three" },
    { type: "model", response: [] },
  ]);
});

Deno.test("toGrammarSchema() makes optional properties nullable and drops $schema", () => {
  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      path: { type: "string", description: "Path" },
      offset: { type: "integer", minimum: 1, default: 1 },
      mode: { enum: ["a", "b"] },
    },
    required: ["path", "offset", "mode"],
    additionalProperties: false,
  };
  assertEquals(toGrammarSchema(schema), {
    type: "object",
    properties: {
      path: { type: "string", description: "Path" },
      offset: { oneOf: [{ type: "integer" }, { type: "null" }] },
      mode: { enum: ["a", "b"] },
    },
  });
  assertEquals(dropOptionalNulls({ path: "x", offset: null, mode: "a" }, schema), {
    path: "x",
    mode: "a",
  });
  assertEquals(toGrammarSchema({ type: "object", properties: {} }), undefined);
});

// ---------------------------------------------------------------- real inference

inferenceTest("complete() returns the scripted model's tool call without running it", async () => {
  await withModel(CALLS_THEN_ANSWERS, async (provider) => {
    const events: ProviderEvent[] = [];
    const turn = await provider.complete(
      { messages: conversation(), tools: [READ_FILE] },
      (event) => events.push(event),
    );
    assertEquals(turn.stopReason, "tool_calls");
    assertEquals(turn.toolCalls.length, 1);
    const call = turn.toolCalls[0];
    assert(call);
    assertEquals(call.name, "read_file");
    assertEquals(JSON.parse(call.arguments), { path: "notes.txt" });
    assert(/^call_[0-9a-f]{8}$/.test(call.id), call.id);
    assert(events.some((e) => e.type === "tool_call_started" && e.name === "read_file"));
    assert((turn.usage?.promptTokens ?? 0) > 0);
    assertEquals(provider.name, "llama.cpp");
    assertEquals(provider.model, "scripted.gguf");
    assertEquals(provider.contextSize, 4096);
  });
});

inferenceTest("complete() answers after a tool_result and streams the text", async () => {
  await withModel(CALLS_THEN_ANSWERS, async (provider) => {
    const messages = conversation();
    const first = await provider.complete({ messages, tools: [READ_FILE] });
    const call = first.toolCalls[0];
    assert(call);
    messages.push(
      { kind: "assistant", content: first.text, data: {} },
      toolCallMessage(call),
      toolResultMessage(call.id, call.name, makeToolResult({ data: "1: hello" })),
    );
    const deltas: string[] = [];
    const turn = await provider.complete({ messages, tools: [READ_FILE] }, (event) => {
      if (event.type === "text_delta") deltas.push(event.text);
    });
    assertEquals(turn.stopReason, "stop");
    assertEquals(turn.toolCalls, []);
    assertEquals(turn.text, "The notes say hello.");
    // The second turn repeats the first's prompt: the context sequence still holds it.
    const usage = turn.usage!;
    assert((usage.reusedTokens ?? 0) > (first.usage?.promptTokens ?? 0) / 2, JSON.stringify(usage));
    assert(usage.reusedTokens! < usage.promptTokens, JSON.stringify(usage));
    assert(deltas.length > 1, "the answer arrives in several deltas");
    assertEquals(deltas.join(""), turn.text);
  });
});

inferenceTest("complete() lets the model answer a permission_denied result", async () => {
  await withModel(CALLS_THEN_ANSWERS, async (provider) => {
    const call = { id: "call_1", name: "read_file", arguments: '{"path":"notes.txt"}' };
    const denied = makeToolResult({
      errorType: "permission_denied",
      errorMessage: "The user denied this call",
    });
    const turn = await provider.complete({
      messages: [
        ...conversation(),
        { kind: "assistant", content: "", data: {} },
        toolCallMessage(call),
        toolResultMessage(call.id, call.name, denied),
      ],
      tools: [READ_FILE],
    });
    assertEquals(turn.stopReason, "stop");
    assertEquals(turn.text, "The notes say hello.");
  });
});

inferenceTest("complete() keeps calling tools with a model that always calls", async () => {
  const always: ScriptedModelOptions = {
    onUser: CALLS_THEN_ANSWERS.onUser,
    onToolResult: CALLS_THEN_ANSWERS.onUser,
  };
  await withModel(always, async (provider) => {
    const messages = conversation();
    for (let i = 0; i < 3; i++) {
      const turn = await provider.complete({ messages, tools: [READ_FILE] });
      assertEquals(turn.stopReason, "tool_calls", `turn ${i + 1}`);
      const call = turn.toolCalls[0];
      assert(call);
      messages.push(
        { kind: "assistant", content: turn.text, data: {} },
        toolCallMessage(call),
        toolResultMessage(call.id, call.name, makeToolResult({ data: "again" })),
      );
    }
  });
});

inferenceTest("complete() drops null for optional arguments so defaults apply", async () => {
  const withLimit: ToolSchema = {
    ...READ_FILE,
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, limit: { type: "integer", default: 2000 } },
      required: ["path", "limit"],
    },
  };
  const script: ScriptedModelOptions = {
    onUser: {
      toolCall: { name: "read_file", argumentsJson: '{"path": "notes.txt", "limit": null}' },
    },
    onToolResult: { text: "Done." },
  };
  await withModel(script, async (provider) => {
    const turn = await provider.complete({ messages: conversation(), tools: [withLimit] });
    assertEquals(turn.toolCalls[0]?.arguments, '{"path":"notes.txt"}');
  });
});

inferenceTest("complete() stops with 'aborted' when the signal fires", async () => {
  const script: ScriptedModelOptions = {
    onUser: { text: "one two three four five six seven eight nine ten" },
    onToolResult: { text: "Done." },
  };
  await withModel(script, async (provider) => {
    const controller = new AbortController();
    const turn = await provider.complete(
      { messages: conversation(), tools: [], signal: controller.signal },
      (event) => {
        if (event.type === "text_delta") controller.abort();
      },
    );
    assertEquals(turn.stopReason, "aborted");
    assertEquals(turn.toolCalls, []);
    assert(!turn.text.includes("ten"), turn.text);

    const already = new AbortController();
    already.abort();
    const skipped = await provider.complete({
      messages: conversation(),
      tools: [],
      signal: already.signal,
    });
    assertEquals(skipped.stopReason, "aborted");

    // The model stays usable after an abort.
    const full = await provider.complete({ messages: conversation(), tools: [] });
    assertEquals(full.text, "one two three four five six seven eight nine ten");
  });
});

inferenceTest("createLlamaCppProvider() reports a damaged GGUF file in one line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const modelFile = join(dir, "broken.gguf");
    await writeScriptedGguf(modelFile, CALLS_THEN_ANSWERS);
    const bytes = await Deno.readFile(modelFile);
    await Deno.writeFile(modelFile, bytes.subarray(0, 2000));
    const result = await createLlamaCppProvider({ modelFile, gpu: "off" });
    assert(!result.ok);
    assert(result.error.message.startsWith(`Cannot load model file "${modelFile}": `));
    assert(!result.error.message.includes("\n"), result.error.message);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
