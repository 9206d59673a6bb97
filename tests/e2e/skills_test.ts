// Skills through the real CLI against a fake llama-server: 200 installed skills cost at most
// max(1% of the window, 300 tokens) in the first request, and a 20-turn REPL session in which
// two skills are loaded (one twice) and one is added on disk keeps its prompt prefix
// byte-identical, the added skill announced with the next message.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { catalogCost, prefixSession } from "../helpers/skill_bench.ts";

Deno.test("harness -p: 200 installed skills cost at most max(1% of the window, 300) tokens in the first request", async () => {
  for (const window of [8192, 32768]) {
    const cost = await catalogCost(window);
    assert(cost.with - cost.without <= cost.budget, JSON.stringify(cost));
    assert(cost.with - cost.without > 100, JSON.stringify(cost));
  }
});

Deno.test("harness REPL: the prompt prefix stays byte-identical over 20 turns with two skills loaded and one added", async () => {
  const session = await prefixSession();
  assertEquals(session.requests.length, 24, session.stderr);
  assertEquals([session.breaks, session.changedPrefix], [0, 0]);
  const user = (i: number) => String(session.requests[i]!.messages.at(-1)!.content);
  const announced = session.requests.findIndex((r) =>
    String(r.messages.at(-1)!.content).includes("- release-notes-helper: Draft release notes")
  );
  assert(user(announced).startsWith("turn 11"), user(announced));
  assert(!String(session.requests[0]!.messages[0]!.content).includes("release-notes-helper"));
  const again = session.requests.map((r) => String(r.messages.at(-1)!.content))
    .filter((content) => content.includes("is already in this conversation"));
  assertEquals(again.length, 1);
});
