// The REPL on a real pseudo-terminal: lines entered while a turn runs are queued and sent when
// it ends (Esc discards them, Ctrl-D exits after the turn), and the prompt stays on screen after
// start-up.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox } from "../helpers/run_cli.ts";
import {
  lastScreenLine,
  type PtySession,
  startPty,
  startupSettled,
  TRACE_STARTUP,
} from "../helpers/pty.ts";

const linux = Deno.build.os === "linux";

/** The REPL on a terminal with its first message sent: the server answers it slowly. */
async function duringTurn(
  sandbox: CliSandbox,
  server: ReturnType<typeof startFakeLlmServer>,
): Promise<PtySession> {
  const pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
  try {
    await pty.waitFor((out) => out.includes("> "), "the prompt");
    await pty.type("first\r");
    await pty.waitFor(() => server.requests.length === 1, "the first request");
  } catch (error) {
    await pty[Symbol.asyncDispose]();
    throw error;
  }
  return pty;
}

Deno.test({
  name: "REPL on a terminal: a line entered during a turn is queued and sent when it ends",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([
      reply().text("first answer").delay(1500),
      reply().text("second answer"),
    ]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
    await pty.waitFor((out) => out.includes("> "), "the prompt");
    await pty.type("first\r");
    await pty.waitFor(() => server.requests.length === 1, "the first request");
    await pty.type("second\r");
    await pty.waitFor((out) => out.includes("second answer"), "the second answer");
    assert(pty.output.includes("second  (queued)"), pty.output);
    const sent = server.requests[1]!.messages.map((m) => m.content);
    assertEquals(sent.slice(-3), ["first", "first answer", "second"]);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: Esc discards what was typed ahead during a turn",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().text("only answer").delay(1500)]);
    await using pty = await duringTurn(sandbox, server);
    await pty.type("never sent\r");
    await pty.type("\x1b");
    await pty.waitFor((out) => out.includes("only answer"), "the answer");
    // A line still queued would be sent as the turn ends, before the Ctrl-D typed after it.
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
    assertEquals(server.requests.length, 1);
    assert(!pty.output.includes("never sent  (queued)"), pty.output);
  },
});

Deno.test({
  name: "REPL on a terminal: Ctrl-D typed during a turn exits when the turn ends",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().text("only answer").delay(1500)]);
    await using pty = await duringTurn(sandbox, server);
    await pty.type("\x04");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"still running">((done) => {
      timer = setTimeout(() => done("still running"), 20_000);
    });
    assertEquals(await Promise.race([pty.exit(), late]), 0);
    clearTimeout(timer);
    assert(pty.output.includes("only answer"), pty.output);
  },
});

Deno.test({
  name: "REPL on a terminal: the prompt is on screen after start-up and after an answer",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().text("hello")]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m"], {
      env: TRACE_STARTUP,
    });
    await pty.waitFor((out) => out.includes("> "), "the prompt");
    // Late writes (lazy module loads, the sandbox's workers) must not leave the line blank
    // once start-up has settled.
    await startupSettled(pty);
    await pty.type("hi\r");
    await pty.waitFor((out) => out.includes("hello"), "the answer");
    await pty.waitFor((out) => lastScreenLine(out).trim() === ">", "the prompt after the answer");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: the prompt is on screen after --resume and after a trust question",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().text("first answer")]);
    const args = ["--base-url", server.baseUrl, "--model", "m"];
    const first = await sandbox.run(["-p", "one", "--output-format", "json", ...args]);
    assertEquals(first.code, 0, first.stderr);
    const id = JSON.parse(first.stdout.trim().split("\n").at(-1)!).session_id as string;
    {
      await using pty = startPty(sandbox, ["--resume", id, ...args], { env: TRACE_STARTUP });
      await pty.waitFor((out) => out.includes("Resumed session"), "the resume note");
      await startupSettled(pty);
      await pty.type("\x04");
      assertEquals(await pty.exit(), 0);
    }
    await Deno.mkdir(`${sandbox.cwd}/.harness`);
    await Deno.writeTextFile(
      `${sandbox.cwd}/.harness/policies.jsonc`,
      '{ "rules": [ { "tool": "ls", "action": "allow" } ] }',
    );
    await using pty = startPty(sandbox, args, { env: TRACE_STARTUP });
    await pty.waitFor((out) => out.includes("Trust its allow rules?"), "the trust question");
    await pty.type("y\r");
    await pty.waitFor((out) => lastScreenLine(out).trim() === ">", "the prompt");
    await startupSettled(pty);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: the project plugin trust question takes one key, like approvals",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.mkdir(`${sandbox.cwd}/plugins`);
    await Deno.writeTextFile(
      `${sandbox.cwd}/plugins/shout.ts`,
      `export default ({ z, defineTool }) => defineTool({
  name: "shout", description: "Shouts.", risk: "safe",
  parameters: z.object({ text: z.string() }),
  run: ({ text }) => ({ output: text.toUpperCase() }),
});
`,
    );
    await using server = startFakeLlmServer([]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
    await pty.waitFor((out) => out.includes("Trust and load them? [y/n]"), "the trust question");
    await pty.type("y"); // no Enter
    await pty.waitFor((out) => lastScreenLine(out).trim() === ">", "the prompt");
    await pty.type("/tools\r");
    await pty.waitFor((out) => out.includes("shout"), "the trusted plugin in /tools");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});
