// The editor's /compact: the focus words reach the summary instruction, and the reply says
// what happened (the summary itself is recorded by the conversation).

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { runSlashCommand } from "../../src/acp/acp_commands.ts";
import { Conversation } from "../../src/agent/conversation.ts";
import { answer, ScriptedProvider } from "../../src/providers/scripted.ts";
import { noTools } from "../helpers/no_tools.ts";

function conversationWith(provider: ScriptedProvider): Conversation {
  return new Conversation({
    provider,
    tools: noTools,
    approver: { approve: () => Promise.resolve({ decision: "allow", by: "mode" }) },
    recorder: { id: null, record: () => {}, end: () => {} },
    limits: { maxIterations: 10, maxToolCalls: 15 },
    window: {},
    stages: { call: [], turn: [] },
  }, {
    messages: [
      { kind: "system", content: "sys" },
      { kind: "user", content: "rename the flag" },
      { kind: "assistant", content: "Renamed --foo to --bar.", data: {} },
    ],
  });
}

const context = (conversation: Conversation) => ({
  conversation,
  approver: () => Promise.reject(new Error("not used")),
  grants: {} as never,
  yes: false,
});

Deno.test("runSlashCommand() /compact FOCUS compacts with the focus and replies", async () => {
  const provider = new ScriptedProvider([answer("We renamed --foo to --bar.")]);
  const conversation = conversationWith(provider);
  const outcome = await runSlashCommand("/compact the flag rename", context(conversation));
  assertEquals(outcome.kind, "reply");
  match((outcome as { text: string }).text, /^Compacted: /);
  match(provider.requests[0]!.at(-1)!.content, /Focus on: the flag rename\./);
  assertEquals(conversation.messages.at(-1)?.content, "We renamed --foo to --bar.");
});

Deno.test("runSlashCommand() /compact says why when there is nothing to compact", async () => {
  const provider = new ScriptedProvider([]);
  const conversation = new Conversation(conversationWith(provider).parts, { messages: [] });
  const outcome = await runSlashCommand("/compact", context(conversation));
  assertEquals(outcome, { kind: "reply", text: "Nothing to compact yet" });
});
