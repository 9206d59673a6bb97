import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { JobTerminals, startedJob } from "../../src/acp/job_terminals.ts";
import { makeToolContext } from "../helpers/tool_context.ts";

Deno.test("startedJob() reads the job run_command started or moved to the background", () => {
  assertEquals(startedJob("Started job j3 in the background: ..."), "j3");
  assertEquals(
    startedJob("x\n[still running after 1m00s: moved to the background as job j4; ...]"),
    "j4",
  );
  assertEquals(startedJob("done\nexit_code: 0"), undefined);
});

Deno.test({
  name: "JobTerminals shows a job in an editor terminal that follows it and ends with it",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using ctx = await makeToolContext();
    const outcome = await ctx.jobs.run({
      command: "echo hello from the job; sleep 30",
      cwd: ctx.workspace,
      background: true,
      limit: 1000,
    });
    assertEquals(outcome.kind, "background");
    // The editor: runs what terminal/create asks, as an editor does.
    const terminals: Deno.ChildProcess[] = [];
    const updates: SessionUpdate[] = [];
    const editor = new JobTerminals({
      create: ({ command, args }) => {
        terminals.push(
          new Deno.Command(command, { args, stdout: "piped", stderr: "null" }).spawn(),
        );
        return Promise.resolve({ terminalId: `t${terminals.length}` });
      },
      release: () => Promise.resolve({}),
      send: (update) => updates.push(update),
      jobs: () => ctx.jobs.summaries(),
    });
    await editor.show("call_1", "j1");
    assertEquals(updates, [{
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      content: [{ type: "terminal", terminalId: "t1" }],
    }]);
    const terminal = terminals[0]!;
    const reader = terminal.stdout.getReader();
    let shown = "";
    while (!shown.includes("hello from the job")) {
      const { value, done } = await reader.read();
      if (done) break;
      shown += new TextDecoder().decode(value);
    }
    assert(shown.includes("hello from the job"), shown);
    reader.releaseLock();
    // Killing the job ends the editor's terminal too (tail --pid).
    await ctx.jobs.kill("j1");
    const status = await Promise.race([
      terminal.status,
      new Promise<"hung">((settle) => setTimeout(() => settle("hung"), 5000)),
    ]);
    if (status === "hung") terminal.kill();
    assert(status !== "hung", "the terminal outlived its job");
    await terminal.stdout.cancel().catch(() => {});
    await editor.close();
  },
});
