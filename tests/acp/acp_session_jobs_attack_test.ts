// Two ACP sessions in one workspace share its tools: a background job belongs to the session
// that started it. Another session's job_output, job_kill and job_list answer as if it did not
// exist (its ids count from j1 on their own), so one conversation cannot read or stop another's.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { type RecordedMessage, reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startAcpClient } from "../helpers/acp_client.ts";

const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

/** The tool results a request sent, by tool call order. */
function toolResults(messages: readonly RecordedMessage[]): string[] {
  return messages.filter((m) => m.role === "tool").map((m) => String(m.content));
}

Deno.test({
  name: "attack: an ACP session cannot read, kill or list another session's background job",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", {
        command: "echo secret-output; sleep 30",
        background: true,
      }),
      reply().text("started"),
      reply()
        .toolCall("job_output", { id: "j1" })
        .toolCall("job_kill", { id: "j1" })
        .toolCall("job_list", {}),
      reply().text("nothing"),
      reply().toolCall("run_command", { command: "echo mine", background: true }),
      reply().text("mine"),
      reply().toolCall("job_list", {}),
      reply().text("listed"),
    ]);
    await using acp = startAcpClient(sandbox, [
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "-R",
      "--allow-write=.",
      "--allow-run",
    ]);
    await acp.initialize();
    const first = await acp.newSession();
    const second = await acp.newSession();
    const prompt = (sessionId: string, words: string) =>
      acp.agent.request("session/prompt", { sessionId, prompt: text(words) });
    assertEquals((await prompt(first, "start a job")).stopReason, "end_turn");
    assertEquals((await prompt(second, "look at j1")).stopReason, "end_turn");
    const [output, kill, list] = toolResults(server.requests[3]!.messages).slice(-3);
    match(output!, /No job \\"j1\\": no job was started/);
    match(kill!, /No job \\"j1\\"/);
    assert(!list!.includes("sleep 30"), list);
    assert(!server.requests.slice(3).some((r) => JSON.stringify(r).includes("secret-output")));
    // The second session's own job is its j1; the first still has its own, running.
    assertEquals((await prompt(second, "start mine")).stopReason, "end_turn");
    match(toolResults(server.requests[5]!.messages).at(-1)!, /Started job j1/);
    assertEquals((await prompt(first, "list")).stopReason, "end_turn");
    const listed = toolResults(server.requests[7]!.messages).at(-1)!;
    match(listed, /j1.*running.*sleep 30/s);
    assert(!listed.includes("echo mine"), listed);
  },
});
