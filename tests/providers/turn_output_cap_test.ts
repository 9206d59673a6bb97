// Unit tests of withTurnOutputCap (src/providers/turn_output_cap.ts) over a provider whose
// answer never ends; the end-to-end attacks are in tests/e2e/endless_stream_attack_test.ts.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type { AssistantTurn, Provider, ProviderEvent } from "../../src/providers/provider.ts";
import { withTurnOutputCap } from "../../src/providers/turn_output_cap.ts";

/** Streams `piece` (and reports `bytes` received per piece) until its signal aborts. */
function endless(piece: string, bytes: number): Provider {
  return {
    name: "endless",
    model: "m",
    async complete(request, onEvent): Promise<AssistantTurn> {
      let text = "";
      while (!request.signal?.aborted) {
        text += piece;
        onEvent?.({ type: "received", bytes });
        onEvent?.({ type: "text_delta", text: piece });
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      return { text, reasoning: "", toolCalls: [], stopReason: "aborted" };
    },
  };
}

Deno.test("withTurnOutputCap() stops a turn at max_turn_bytes of received bytes", async () => {
  const shown: ProviderEvent[] = [];
  const turn = await withTurnOutputCap(endless("x", 1000), { maxTokens: 1e9, maxBytes: 50_000 }, {
    baseUrl: "http://h/v1",
  }).complete({ messages: [], tools: [] }, (event) => shown.push(event));
  assertEquals(turn.stopReason, "error");
  assert(turn.error?.kind === "provider_stream" && turn.error.message.includes("max_turn_bytes"));
  assert(turn.text.length <= 51, `kept ${turn.text.length} characters`);
  // Nothing past the limit reaches the terminal.
  assert(shown.filter((e) => e.type === "text_delta").length <= 50);
});

Deno.test("withTurnOutputCap() names the in-process model when it is the source", async () => {
  const turn = await withTurnOutputCap(endless("ab", 0), { maxTokens: 20, maxBytes: 1e9 }, {
    baseUrl: "model.gguf",
    inProcess: true,
  }).complete({ messages: [], tools: [] });
  assert(turn.error?.kind === "provider_stream" && turn.error.inProcess === true);
  assert(turn.error.message.includes("max_turn_tokens"), turn.error.message);
});

Deno.test("withTurnOutputCap() leaves a user's interrupt an interrupt", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const turn = await withTurnOutputCap(endless("x", 1), { maxTokens: 1e9, maxBytes: 1e9 }, {
    baseUrl: "u",
  }).complete({ messages: [], tools: [], signal: controller.signal });
  assertEquals([turn.stopReason, turn.error], ["aborted", undefined]);
});

Deno.test("withTurnOutputCap() passes a turn within the limits through unchanged", async () => {
  const done: AssistantTurn = {
    text: "hi",
    reasoning: "",
    toolCalls: [{ id: "1", name: "ls", arguments: "{}" }],
    stopReason: "tool_calls",
  };
  const inner: Provider = {
    name: "n",
    model: "m",
    complete: (_request, onEvent) => {
      onEvent?.({ type: "text_delta", text: "hi" });
      return Promise.resolve(done);
    },
  };
  const turn = await withTurnOutputCap(inner, { maxTokens: 5, maxBytes: 100 }, { baseUrl: "u" })
    .complete({ messages: [], tools: [] });
  assertEquals(turn, done);
});
