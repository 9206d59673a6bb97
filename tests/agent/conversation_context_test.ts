// Never overflow: a server's context error (llama-server's and vLLM's real bodies) makes the
// conversation shorten old tool output and ask once more; /compact replaces the conversation
// by the model's summary, the session log keeps everything, and resuming continues from the
// summary; automatic compaction at the configured threshold.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { Conversation } from "../../src/agent/conversation.ts";
import { makeToolResult, toolCallMessage, toolResultMessage } from "../../src/messages.ts";
import type { Message } from "../../src/messages.ts";
import { createOpenAICompatProvider } from "../../src/providers/openai_compat.ts";
import { answer, ScriptedProvider } from "../../src/providers/scripted.ts";
import { openTestStore } from "../helpers/session_store.ts";
import { COMPACT_INSTRUCTION, COMPACTED_MARKER } from "../../src/agent/compaction.ts";
import { conversationParts, EventLog, openLoopHost } from "../helpers/loop_host.ts";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { createOllamaProvider } from "../../src/providers/ollama.ts";
import { TokenCounter } from "../../src/providers/token_counter.ts";
import { toToolSchema } from "../../src/tools/tool_entry.ts";

const signal = () => new AbortController().signal;

const partsWith = conversationParts;

/** A conversation holding one big, old tool result. */
function history(): Message[] {
  return [
    { kind: "system", content: "sys" },
    { kind: "user", content: "read it" },
    toolCallMessage({ id: "c1", name: "echo", arguments: '{"text":"x"}' }),
    toolResultMessage("c1", "echo", makeToolResult({ data: "x".repeat(40_000) })),
    { kind: "assistant", content: "It is all x.", data: {} },
  ];
}

const LLAMA_SERVER_TOO_LONG = {
  error: {
    code: 400,
    message: "the request exceeds the available context size, try increasing it",
    type: "exceed_context_size_error",
    n_prompt_tokens: 12_410,
    n_ctx: 8192,
  },
};

const VLLM_TOO_LONG = {
  object: "error",
  message: "This model's maximum context length is 4096 tokens. However, you requested 12500 " +
    "tokens (12000 in the messages, 500 in the completion). Please reduce the length of the " +
    "messages or completion.",
  type: "BadRequestError",
  param: null,
  code: 400,
};

Deno.test("createOpenAICompatProvider() reads the window out of vLLM's context error", async () => {
  await using server = startFakeLlmServer([reply().httpError(400, VLLM_TOO_LONG)]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const turn = await provider.complete({ messages: [{ kind: "user", content: "x" }], tools: [] });
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.contextExceeded, { limit: 4096, promptTokens: 12000 });
  assert(turn.error?.kind === "provider_http" && turn.error.message.includes("/compact"));
});

// The tests below share one tool host: each would otherwise start its own sandbox worker and
// load the fixture plugins, which costs more than what it checks. Each step builds its own
// parts; the host holds no state between calls but its workers.
Deno.test("context overflow handling over one tool host (the fixture plugins, no grants)", async (t) => {
  await using h = await openLoopHost();
  await t.step(
    "Conversation.send() shortens and asks again after llama-server's context error",
    async () => {
      await using server = startFakeLlmServer([
        reply().httpError(400, LLAMA_SERVER_TOO_LONG),
        reply().text("Done"),
      ]);
      const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
      // harness believed the window was larger than the server's slot.
      const conversation = new Conversation(
        partsWith(h.host, provider, { window: { contextLength: 65_536 } }),
        { messages: history() },
      );
      const display = new EventLog();
      const outcome = await conversation.send("and now?", display.sink, signal());
      assertEquals(outcome.stopReason, "answered");
      assertEquals(outcome.text, "Done");
      assertEquals(server.requests.length, 2);
      const first = server.requests[0]!.messages[3]!.content as string;
      const second = server.requests[1]!.messages[3]!.content as string;
      assert(first.length > 40_000);
      assert(second.includes("Shortened to save context"), second);
      const warnings = display.of("warning").map((w) => (w as { message: string }).message);
      assert(
        warnings[0]?.startsWith(
          "The server refused the request as too long (its window is 8192 tokens, it counted " +
            "12410 tokens): asking again with old tool output shortened; counting 3.468 characters " +
            "per token from now on",
        ),
        warnings[0],
      );
      // The window is lowered for the rest of the session, a little below the server's.
      assertEquals(conversation.contextLength, 7946);
      // The conversation itself keeps the whole result.
      assertEquals(conversation.messages[3]?.content.length, history()[3]?.content.length);
    },
  );

  await t.step(
    "Conversation.send() asks only once more when the server still refuses",
    async () => {
      await using server = startFakeLlmServer([
        reply().httpError(400, VLLM_TOO_LONG),
        reply().httpError(400, VLLM_TOO_LONG),
        reply().text("never asked"),
      ]);
      const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
      const conversation = new Conversation(
        partsWith(h.host, provider, { window: { contextLength: 65_536 } }),
        { messages: history() },
      );
      const outcome = await conversation.send("and now?", () => {}, signal());
      assertEquals(outcome.stopReason, "error");
      assertEquals(server.requests.length, 2);
      assertEquals(
        outcome.errorMessage,
        "The server refused the request as too long again after old tool output was shortened " +
          "(12000 tokens for its 4096-token window): type /compact, start a new session, or raise " +
          "the server's context size",
      );
    },
  );

  await t.step(
    "Conversation.compact() continues from the summary, and resume restores it",
    async () => {
      using store = openTestStore(h.workspace);
      const writer = store.startSession({
        model: "scripted",
        baseUrl: "scripted",
        cwd: h.workspace,
        grants: "",
        provider: "scripted",
      });
      if (!writer.ok) throw new Error(JSON.stringify(writer.error));
      const provider = new ScriptedProvider([
        answer("Paris is the capital of France."),
        answer("The user asked for France's capital: Paris."),
        answer("Lyon is second."),
      ]);
      const conversation = Conversation.start(
        partsWith(h.host, provider, { recorder: writer.value, window: { contextLength: 8192 } }),
        "sys",
      );
      await conversation.send("What is the capital of France?", () => {}, signal());
      const display = new EventLog();
      const done = await conversation.compact(display.sink, signal());
      assertEquals(done, {});
      assertEquals(conversation.messages, [
        { kind: "system", content: "sys" },
        { kind: "user", content: COMPACTED_MARKER },
        { kind: "assistant", content: "The user asked for France's capital: Paris.", data: {} },
      ]);
      assertEquals(display.of("compacted").length, 1);
      // The summary request held the whole conversation and the instruction.
      const asked = provider.requests[1]!;
      assertEquals(asked.at(-1), { kind: "user", content: COMPACT_INSTRUCTION });
      assert(asked.some((m) => m.content === "What is the capital of France?"));

      await conversation.send("And the second city?", () => {}, signal());
      const loaded = store.loadSession(writer.value.id!);
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
      assertEquals(loaded.value.messages, conversation.messages);
      assertEquals(loaded.value.messages.length, 5);
      // The full history stays in the log.
      const lines: string[] = [];
      const exported = store.exportSession(writer.value.id!, (line) => lines.push(line));
      assert(exported.ok);
      const log = lines.join("\n");
      assert(
        log.includes("Paris is the capital of France.") && log.includes("conversation_compacted"),
      );
    },
  );

  await t.step(
    "Conversation.send() compacts first when the request passes compact_at",
    async () => {
      const provider = new ScriptedProvider([answer("Summary: x everywhere."), answer("Fine")]);
      const messages = history();
      messages[4] = { kind: "assistant", content: "y".repeat(18_000), data: {} };
      const conversation = new Conversation(
        partsWith(h.host, provider, { window: { contextLength: 8192, compactAt: 50 } }),
        { messages },
      );
      const display = new EventLog();
      const outcome = await conversation.send("go on", display.sink, signal());
      assertEquals(outcome.text, "Fine");
      const warnings = display.of("warning").map((w) => (w as { message: string }).message);
      assert(
        warnings.some((w) => w.includes('compacting it first (config "compact_at")')),
        warnings.join("\n"),
      );
      assertEquals(conversation.messages[2]?.content, "Summary: x everywhere.");
      assertEquals(conversation.messages.at(-1)?.content, "Fine");
    },
  );

  await t.step(
    "Conversation.send() asks Ollama again when it cut the prompt to its num_ctx",
    async () => {
      await using server = startFakeOllama();
      // Ollama read a whole window of prompt tokens: it cut the front. The call is not run.
      server.script(
        ollamaReply().toolCall("echo", { text: "x" }).done("stop", { prompt: 8192, completion: 5 }),
        ollamaReply().text("Done").done("stop", { prompt: 2500, completion: 1 }),
      );
      const provider = createOllamaProvider({ baseUrl: server.url, model: "qwen3", numCtx: 8192 });
      // About 3,000 tokens at four characters each: sent whole, but this model counts more.
      const messages = history();
      messages[3] = toolResultMessage("c1", "echo", makeToolResult({ data: "x".repeat(12_000) }));
      const conversation = new Conversation(
        partsWith(h.host, provider, { window: { contextLength: 8192 } }),
        { messages },
      );
      const display = new EventLog();
      const outcome = await conversation.send("and now?", display.sink, signal());
      assertEquals(outcome.text, "Done");
      assertEquals(outcome.toolCalls, []);
      const chats = server.requests.filter((r) => r.path === "/api/chat");
      assertEquals(chats.length, 2);
      const warnings = display.of("warning").map((w) => (w as { message: string }).message);
      assert(
        warnings.some((w) => w.startsWith("The server refused the request as too long")),
        warnings.join("\n"),
      );
    },
  );

  await t.step(
    "Conversation.send() shortens old tool output instead of summarising, at 32k too",
    async () => {
      // Eight turns that each read 14,000 characters: about 28,500 tokens, over 85% of 32,768
      // (27,852), under the window minus the answer room (28,672).
      const messages: Message[] = [{ kind: "system", content: "sys" }];
      for (let i = 0; i < 8; i++) {
        messages.push(
          { kind: "user", content: `read part ${i}` },
          toolCallMessage({ id: `c${i}`, name: "echo", arguments: `{"text":"${i}"}` }),
          toolResultMessage(`c${i}`, "echo", makeToolResult({ data: "z".repeat(14_000) })),
          { kind: "assistant", content: `Part ${i} is all z.`, data: {} },
        );
      }
      const provider = new ScriptedProvider([answer("Fine")]);
      const conversation = new Conversation(
        partsWith(h.host, provider, { window: { contextLength: 32_768 } }),
        { messages },
      );
      const display = new EventLog();
      const outcome = await conversation.send("go on", display.sink, signal());
      assertEquals(outcome.text, "Fine");
      // One request, the turn itself: no summary was asked for.
      assertEquals(provider.requests.length, 1);
      assert(!provider.requests[0]!.some((m) => m.content === COMPACT_INSTRUCTION));
      const warnings = display.of("warning").map((w) => (w as { message: string }).message);
      assert(
        warnings.some((w) => w.startsWith("Shortened 8 old tool results")),
        warnings.join("\n"),
      );
      assert(!warnings.some((w) => w.includes("compacting")), warnings.join("\n"));
    },
  );

  await t.step("Conversation.compact() fits its own request to the window", async () => {
    // An answer the summary must keep (not shortenable) and a big old result: together over
    // the window's limit, so the summary request shortens the result first.
    const messages = history();
    messages[4] = { kind: "assistant", content: "y".repeat(12_000), data: {} };
    const provider = new ScriptedProvider([answer("Summary.")]);
    const conversation = new Conversation(
      partsWith(h.host, provider, { window: { contextLength: 8192 } }),
      { messages },
    );
    assertEquals(await conversation.compact(() => {}, signal()), {});
    const asked = provider.requests[0]!;
    assertEquals(asked.at(-1)?.content, COMPACT_INSTRUCTION);
    const tools = h.host.list().map(toToolSchema);
    const counter = new TokenCounter();
    assert(counter.request(asked, tools) <= 8192 - 2048, String(counter.request(asked, tools)));
    assert(asked.some((m) => m.content === "y".repeat(12_000)));
  });
});
