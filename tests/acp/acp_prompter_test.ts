// createAcpPrompter (src/acp/acp_prompter.ts) with a call the terminal could edit: ACP's
// session/request_permission has four fixed option kinds and no way to send changed
// arguments back, so an editor is offered the same four answers and never an edit.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { createAcpPrompter } from "../../src/acp/acp_prompter.ts";
import type { PromptRequest } from "../../src/permissions/prompt_types.ts";

Deno.test("createAcpPrompter() offers an editor no edit option for a call the terminal could edit", async () => {
  const sent: RequestPermissionRequest[] = [];
  const prompter = createAcpPrompter({
    sessionId: () => "s",
    currentCall: () => ({ toolCallId: "c1", title: "run_command" }),
    request: (request) => {
      sent.push(request);
      return Promise.resolve({ outcome: { outcome: "selected", optionId: "allow_once" } });
    },
  });
  const request: PromptRequest = {
    tool: "run_command",
    args: { command: "rm -rf build" },
    risk: "high",
    alwaysFile: "p",
    edit: {
      sent: { command: "rm -rf build" },
      check: (args) => Promise.resolve({ ok: true, value: args }),
    },
  };
  assertEquals(await prompter.ask(request), { kind: "once" });
  assertEquals(sent[0]?.options.map((option) => option.kind), [
    "allow_once",
    "allow_always",
    "reject_once",
    "reject_always",
  ]);
  assertEquals(sent[0]?.toolCall.rawInput, { command: "rm -rf build" });
});
