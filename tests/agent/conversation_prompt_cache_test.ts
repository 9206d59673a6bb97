// Every prompt token processed once: a Conversation with the real OpenAI-compatible provider
// against the fake server in llamaServer mode (one slot that reuses the prefix shared with the
// previous request). Requests are append-only between steps, the token count is calibrated
// from the server's usage (and its /tokenize near the window), a refusal's own numbers cut
// enough in one retry, and /context shows what was processed and reused.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { Conversation } from "../../src/agent/conversation.ts";
import {
  makeToolResult,
  type Message,
  toolCallMessage,
  type ToolResult,
  toolResultMessage,
} from "../../src/messages.ts";
import { createOpenAICompatProvider } from "../../src/providers/openai_compat.ts";
import { conversationParts, EventLog, openLoopHost } from "../helpers/loop_host.ts";
import {
  type FakeResponder,
  type RecordedRequest,
  reply,
  startFakeLlmServer,
} from "../helpers/fake_llm_server.ts";
import { renderPrompt } from "../helpers/prompt_cache.ts";
import { openTestStore } from "../helpers/session_store.ts";

const signal = () => new AbortController().signal;

const partsWith = conversationParts;

/** A model that echoes `limit` copies of a phrase for each user message, then answers. */
function echoing(limit: number): FakeResponder {
  let turn = 0;
  return (request: RecordedRequest) => {
    const last = request.messages.at(-1);
    if (last?.role === "user") {
      turn++;
      return reply().toolCall("echo", { text: `lorem ipsum ${turn} `, limit }, {
        id: `call_${turn}`,
      });
    }
    return reply().text(`Turn ${turn} done.`);
  };
}

/** A conversation whose last call returned 23,000 characters (about 5,750 tokens at four). */
function readOf23000Chars(): Message[] {
  return [
    { kind: "system", content: "sys" },
    { kind: "user", content: "read it" },
    toolCallMessage({ id: "c1", name: "echo", arguments: '{"text":"x"}' }),
    toolResultMessage("c1", "echo", makeToolResult({ data: "0123456789".repeat(2_300) })),
  ];
}

/** The prompt a request renders to, without the assistant block it opens at the end. */
function promptOf(request: RecordedRequest): string {
  return renderPrompt(request).replace(/<\|im_start\|>assistant\n$/, "");
}

/** The tool result data of a message. */
export function resultData(message: Message | undefined): string {
  if (message?.kind !== "tool_result") throw new Error("not a tool result");
  return (JSON.parse(message.content) as ToolResult).data ?? "";
}

// The tests below share one tool host: each would otherwise start its own sandbox worker and
// load the fixture plugins, which costs more than what it checks. Each step builds its own
// parts; the host holds no state between calls but its workers.
Deno.test("prompt reuse over one tool host (the fixture plugins, no grants)", async (t) => {
  await using h = await openLoopHost();
  await t.step(
    "Conversation.send() repeats each request as the start of the next, with one step before the threshold",
    async () => {
      await using server = startFakeLlmServer(echoing(120), {
        llamaServer: { charsPerToken: 4, window: 8192 },
      });
      const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
      const conversation = Conversation.start(
        partsWith(h.host, provider, { window: { contextLength: 8192 } }),
        "sys",
      );
      const display = new EventLog();
      for (let i = 1; i <= 14; i++) {
        const outcome = await conversation.send(`Echo part ${i}.`, display.sink, signal());
        assertEquals(outcome.stopReason, "answered");
      }
      const requests = server.requests;
      const breaks = requests.slice(1).flatMap((request, i) =>
        promptOf(request).startsWith(promptOf(requests[i]!)) ? [] : [i + 1]
      );
      const steps = display.of("warning").filter((w) => w.message.startsWith("Shortened"));
      // The conversation crossed the threshold once: one step, every other request appended.
      assertEquals(steps.length, 1, JSON.stringify(display.of("warning")));
      assertEquals(breaks.length, 1, String(breaks));
      // The step came before the user message whose turn would cross the threshold, so what the
      // server processed again held none of that turn's results.
      assertEquals(requests[breaks[0]!]!.messages.at(-1)?.role, "user");
      // One large step: every earlier user turn's result at once.
      const shortened = Number(/^Shortened (\d+) old tool results/.exec(steps[0]!.message)?.[1]);
      assert(shortened >= 8, steps[0]!.message);
      // The server reused everything but the new messages, except after the step.
      const log = server.cache!.log;
      for (const [i, count] of log.entries()) {
        if (i === 0 || i === breaks[0]) continue;
        const before = Math.floor(promptOf(requests[i - 1]!).length / 4);
        assert(count.reused >= before, `request ${i + 1}: ${count.reused} < ${before}`);
      }
      assertEquals(server.cache!.totals().refused, 0);
      assertEquals(server.pairingErrors, []);
    },
  );

  await t.step(
    "Conversation.send() learns a 2-characters-per-token model and fits a 29 KB result without a refusal",
    async () => {
      // 29,000 characters of output: about 14,500 tokens on this server, 7,250 at the default 4.
      await using server = startFakeLlmServer([
        reply().text("Hello."),
        reply().toolCall("echo", { text: "abcdefghij", limit: 2900 }),
        reply().text("Read it."),
      ], { llamaServer: { charsPerToken: 2, window: 8192 } });
      const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
      const conversation = Conversation.start(
        partsWith(h.host, provider, { window: { contextLength: 8192 } }),
        "sys",
      );
      await conversation.send("hi", () => {}, signal());
      const display = new EventLog();
      const outcome = await conversation.send("read the long output", display.sink, signal());
      assertEquals(outcome.stopReason, "answered");
      assertEquals(outcome.text, "Read it.");
      assertEquals(server.cache!.totals().refused, 0);
      const report = conversation.contextReport()!;
      assert(
        report.calibration!.charsPerToken > 1.5 && report.calibration!.charsPerToken < 2.5,
        JSON.stringify(report.calibration),
      );
      // The result was cut to head and tail, within the window by the server's own count.
      const warnings = display.of("warning").map((w) => w.message);
      assert(
        warnings.some((w) => w.startsWith("Cut 1 new one to head and tail")),
        warnings.join("\n"),
      );
      assert(server.cache!.log.at(-1)!.prompt <= 8192 - 2048, JSON.stringify(server.cache!.log));
    },
  );

  await t.step(
    "Conversation.send() cuts by the server's count after a refusal and asks once more",
    async () => {
      await using server = startFakeLlmServer([reply().text("Done")], {
        llamaServer: { charsPerToken: 2, window: 8192 },
      });
      // No /tokenize, and no usage seen yet: the first request goes out at four characters per
      // token and the server, counting two, refuses it with its numbers.
      const { countTokens: _ignored, ...provider } = createOpenAICompatProvider({
        baseUrl: server.baseUrl,
        model: "m",
      });
      const messages = readOf23000Chars();
      const conversation = new Conversation(
        partsWith(h.host, provider, { window: { contextLength: 8192 } }),
        {
          messages,
        },
      );
      const display = new EventLog();
      const outcome = await conversation.send(null, display.sink, signal());
      assertEquals(outcome.stopReason, "answered");
      const log = server.cache!.log;
      assertEquals(log.map((c) => c.refused), [true, false]);
      const warning = display.of("warning").map((w) => w.message).find((w) =>
        w.startsWith("The server refused")
      );
      assert(
        warning?.startsWith(
          `The server refused the request as too long (its window is 8192 tokens, it counted ${
            log[0]!.prompt
          } tokens)`,
        ),
        warning,
      );
      assert(log[1]!.prompt < 8192 * 0.97, JSON.stringify(log));
      // The window stays lowered for the rest of the session.
      assertEquals(conversation.contextLength, 7946);
    },
  );

  await t.step(
    "Conversation.send() asks the server's tokenizer near the window instead of being refused",
    async () => {
      await using server = startFakeLlmServer([reply().text("Done")], {
        llamaServer: { charsPerToken: 2, window: 8192 },
      });
      const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
      const messages = readOf23000Chars();
      const conversation = new Conversation(
        partsWith(h.host, provider, { window: { contextLength: 8192 } }),
        {
          messages,
        },
      );
      const outcome = await conversation.send(null, () => {}, signal());
      assertEquals(outcome.stopReason, "answered");
      // Without the tokenizer this request is refused (the test before this one).
      assertEquals(server.cache!.log.map((c) => c.refused), [false]);
      assertEquals(server.cache!.tokenizeCalls, 1);
    },
  );

  await t.step(
    "Conversation.contextReport() shows the prompt tokens processed and reused",
    async () => {
      await using server = startFakeLlmServer(echoing(50), {
        llamaServer: { charsPerToken: 4, window: 32768 },
      });
      const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
      const conversation = Conversation.start(
        partsWith(h.host, provider, {
          window: { contextLength: 32768, contextSource: "llama-server /props" },
        }),
        "sys",
      );
      await conversation.send("one", () => {}, signal());
      await conversation.send("two", () => {}, signal());
      const report = conversation.contextReport()!;
      const log = server.cache!.log;
      const sum = (counts: typeof log) => ({
        prompt: counts.reduce((s, c) => s + c.prompt, 0),
        reused: counts.reduce((s, c) => s + c.reused, 0),
      });
      const last = sum(log.slice(2));
      assertEquals({ prompt: report.lastTurn!.prompt, reused: report.lastTurn!.reused }, last);
      assertEquals(
        { prompt: report.session!.prompt, reused: report.session!.reused },
        sum(log),
      );
      assertEquals(report.session!.requests, 4);
      const { formatContextReport } = await import("../../src/agent/context_report.ts");
      const text = formatContextReport(report);
      const n = (v: number) => v.toLocaleString("en-US");
      assert(
        text.includes(
          `Last turn: ${n(last.prompt - last.reused)} processed, ${n(last.reused)} reused`,
        ),
        text,
      );
      assert(
        text.includes("characters per token (learned from the server's prompt token counts)"),
        text,
      );
    },
  );

  await t.step("the session log keeps each model turn's prompt tokens reused", async () => {
    await using server = startFakeLlmServer([reply().text("One."), reply().text("Two.")], {
      llamaServer: { charsPerToken: 4, window: 32768 },
    });
    using store = openTestStore(h.workspace);
    const writer = store.startSession({
      model: "m",
      baseUrl: server.baseUrl,
      cwd: h.workspace,
      grants: "",
      provider: "openai",
    });
    if (!writer.ok) throw new Error(JSON.stringify(writer.error));
    const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
    const conversation = Conversation.start(
      partsWith(h.host, provider, { window: { contextLength: 32768 }, recorder: writer.value }),
      "sys",
    );
    await conversation.send("one", () => {}, signal());
    await conversation.send("two", () => {}, signal());
    const loaded = store.loadSession(writer.value.id!);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const usage = loaded.value.messages.flatMap((m) =>
      m.kind === "assistant" ? [m.data.usage] : []
    );
    const log = server.cache!.log;
    assertEquals(usage.map((u) => u?.reusedTokens), log.map((c) => c.reused));
    assertEquals(usage.map((u) => u?.promptTokens), log.map((c) => c.prompt));
    assert(usage[1]!.reusedTokens! > 0);
  });
});
