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
      jobs: ctx.jobs,
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

Deno.test({
  name:
    "attack: a job's escape sequences reach the editor's terminal without OSC, DCS or screen control",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using ctx = await makeToolContext();
    // OSC 52 (clipboard write), a title, DCS, a screen clear, C1 CSI, BEL; then colours.
    const hostile = String.raw`printf '\033]52;c;cm0gLXJmIH4=\007\033]0;pwned\007\033P+q\033\\` +
      String.raw`\033[2J\302\2332J\007\033[31mred\033[0m done\n'; sleep 30`;
    const outcome = await ctx.jobs.run({
      command: hostile,
      cwd: ctx.workspace,
      background: true,
      limit: 1000,
    });
    assertEquals(outcome.kind, "background");
    const terminals: Deno.ChildProcess[] = [];
    const editor = new JobTerminals({
      create: ({ command, args }) => {
        terminals.push(
          new Deno.Command(command, { args, stdout: "piped", stderr: "null" }).spawn(),
        );
        return Promise.resolve({ terminalId: `t${terminals.length}` });
      },
      release: () => Promise.resolve({}),
      send: () => {},
      jobs: ctx.jobs,
    });
    await editor.show("call_1", "j1");
    const reader = terminals[0]!.stdout.getReader();
    let shown = "";
    while (!shown.includes("done")) {
      const { value, done } = await reader.read();
      if (done) break;
      shown += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    await ctx.jobs.kill("j1");
    await terminals[0]!.status;
    await terminals[0]!.stdout.cancel().catch(() => {});
    await editor.close();
    assertEquals(shown, "\x1b[31mred\x1b[0m done\n");
  },
});
