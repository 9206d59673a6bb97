// Checkpoints end to end: the real CLI against a scripted server. A -p run changes a file and
// the REPL (on a pseudo-terminal) resumed with --continue puts it back with /undo; a file the
// user changed since is asked about and kept; /rewind takes files and conversation back;
// ACP's /undo and /rewind do the same for an editor, settled by its word when the user edited a
// file.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox } from "../helpers/run_cli.ts";
import { startPty } from "../helpers/pty.ts";
import { startAcpClient } from "../helpers/acp_client.ts";
import { gitWrapper } from "../helpers/undo_host.ts";
import { workspaceDataDir } from "../../src/config/folders.ts";

const linux = Deno.build.os === "linux";
const grants = ["--allow-read=.", "--allow-write=."];
const read = (path: string) => Deno.readTextFile(path).catch(() => undefined);
/** The scripted server's model, --yes and the grants. */
const yesArgs = (server: { baseUrl: string }) => [
  "--yes",
  "--base-url",
  server.baseUrl,
  "--model",
  "m",
  ...grants,
];

/** `harness acp --yes` against a scripted server, one session open: prompts and text replies. */
async function acpSession(sandbox: CliSandbox, server: { baseUrl: string }) {
  const acp = startAcpClient(sandbox, yesArgs(server));
  await acp.initialize();
  const sessionId = await acp.newSession();
  return Object.assign(acp, {
    prompt: (text: string) =>
      acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }),
    replies: () =>
      acp.updates.flatMap((n) =>
        n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
          ? [n.update.content.text]
          : []
      ),
  });
}

Deno.test({
  name: "harness -p changes a file; /undo after --continue puts it back and says which",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "original\n");
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "a.txt", content: "by the model\n" }),
      reply().toolCall("write_file", { path: "new.txt", content: "created\n" }),
      reply().text("Done."),
    ]);
    const model = ["--base-url", server.baseUrl, "--model", "m"];
    const out = await sandbox.run(["-p", "rewrite a.txt", "--yes", ...model, ...grants]);
    assertEquals(out.code, 0, out.stderr);
    assertEquals(await read(`${sandbox.cwd}/a.txt`), "by the model\n");
    await using pty = startPty(sandbox, ["--continue", ...model, ...grants]);
    await pty.waitFor((o) => o.includes("> "), "the prompt");
    await pty.type("/undo\r");
    await pty.waitFor((o) => o.includes("Removed (the turn created them): new.txt"), "the report");
    assert(pty.output.includes("Removing a file the turn created: new.txt"));
    assert(pty.output.includes('Undid the file changes of "rewrite a.txt"'));
    assert(pty.output.includes("Restored: a.txt"));
    assertEquals(await read(`${sandbox.cwd}/a.txt`), "original\n");
    assertEquals(await read(`${sandbox.cwd}/new.txt`), undefined);
    await pty.type("/undo\r");
    await pty.waitFor((o) => o.includes("No turn has changed files yet"), "nothing left to undo");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL /undo asks about a file the user changed since; k keeps it and restores the rest",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "a0");
    await Deno.writeTextFile(`${sandbox.cwd}/b.txt`, "b0");
    await using server = startFakeLlmServer([
      reply()
        .toolCall("write_file", { path: "a.txt", content: "a1" })
        .toolCall("write_file", { path: "b.txt", content: "b1" }),
      reply().text("Both written."),
    ]);
    await using pty = startPty(sandbox, yesArgs(server));
    await pty.waitFor((o) => o.includes("> "), "the prompt");
    await pty.type("write both\r");
    await pty.waitFor((o) => o.includes("Both written."), "the answer");
    await pty.waitFor((o) => o.includes("Changed 2 files: a.txt, b.txt"), "the checkpoint line");
    await Deno.writeTextFile(`${sandbox.cwd}/b.txt`, "my own edit");
    await pty.type("/undo\r");
    await pty.waitFor((o) => o.includes("You changed b.txt after the model did"), "the question");
    await pty.type("k");
    await pty.waitFor((o) => o.includes("Kept your changes to: b.txt"), "the report");
    assertEquals(await read(`${sandbox.cwd}/a.txt`), "a0");
    assertEquals(await read(`${sandbox.cwd}/b.txt`), "my own edit");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL /rewind lists the messages and goes back before one, files and conversation",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([
      reply().text("Hello."),
      reply().toolCall("write_file", { path: "x.txt", content: "x" }),
      reply().text("Wrote x."),
      reply().text("Fresh answer."),
    ]);
    await using pty = startPty(sandbox, yesArgs(server));
    await pty.waitFor((o) => o.includes("> "), "the prompt");
    await pty.type("hi\r");
    await pty.waitFor((o) => o.includes("Hello."), "the first answer");
    await pty.type("write x\r");
    await pty.waitFor((o) => o.includes("Wrote x."), "the second answer");
    await pty.type("/rewind\r");
    await pty.waitFor((o) => o.includes("Rewind to before which message?"), "the list");
    assert(pty.output.includes('  2  "write x" (1 file changed since)'));
    await pty.type("2\r");
    await pty.waitFor((o) => o.includes('Rewound to before "write x"'), "the report");
    assertEquals(await read(`${sandbox.cwd}/x.txt`), undefined);
    await pty.type("something else\r");
    await pty.waitFor((o) => o.includes("Fresh answer."), "the answer after the rewind");
    const sent = server.requests.at(-1)!.messages.map((m) => m.content);
    assertEquals(sent.slice(1), ["hi", "Hello.", "something else"]);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name:
    "harness acp /undo restores a file; a file the editor's user changed waits for keep or overwrite",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "a0");
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "a.txt", content: "a1" }),
      reply().text("Written."),
    ]);
    await using acp = await acpSession(sandbox, server);
    const { prompt, replies } = acp;
    await prompt("write a");
    assertEquals(await read(`${sandbox.cwd}/a.txt`), "a1");
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "mine");
    await prompt("/undo");
    assert(replies().at(-1)?.includes('Send "/undo keep"'), replies().at(-1));
    assertEquals(await read(`${sandbox.cwd}/a.txt`), "mine");
    await prompt("/undo overwrite");
    assert(replies().at(-1)?.includes("Restored: a.txt"), replies().at(-1));
    assertEquals(await read(`${sandbox.cwd}/a.txt`), "a0");
    await acp.waitFor((n) =>
      n.update.sessionUpdate === "available_commands_update" &&
      n.update.availableCommands.some((c) => c.name === "rewind")
    );
    assertEquals(server.requests.length, 2, "the commands asked the model nothing");
  },
});

Deno.test({
  name:
    "harness acp /rewind lists the messages and goes back before one; a file the user changed waits for keep",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "a0");
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "a.txt", content: "a1" }),
      reply().text("Wrote a."),
      reply().toolCall("write_file", { path: "b.txt", content: "b1" }),
      reply().text("Wrote b."),
      reply().text("Starting over."),
    ]);
    await using acp = await acpSession(sandbox, server);
    const { prompt, replies } = acp;
    await prompt("write a");
    await prompt("write b");
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "mine");
    await prompt("/rewind");
    const list = replies().at(-1) ?? "";
    assert(list.includes('1  "write a" (2 files changed since)'), list);
    assert(list.includes('2  "write b" (1 file changed since)'), list);
    await prompt("/rewind 1");
    assert(replies().at(-1)?.includes('Send "/rewind 1 keep"'), replies().at(-1));
    assertEquals(await read(`${sandbox.cwd}/b.txt`), "b1", "nothing changed without a word");
    await prompt("/rewind 1 keep");
    const done = replies().at(-1) ?? "";
    assert(done.includes('Rewound to before "write a"'), done);
    assertEquals([await read(`${sandbox.cwd}/a.txt`), await read(`${sandbox.cwd}/b.txt`)], [
      "mine",
      undefined,
    ]);
    await prompt("start again");
    const sent = server.requests.at(-1)!.messages.map((m) => m.role);
    assertEquals(sent, ["system", "user"], "the conversation went back before the first message");
  },
});

Deno.test({
  name: "a turn cut short by kill -9 can be undone after --continue",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "original\n");
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "a.txt", content: "by the model\n" }),
      reply().text("Still think").hang(),
    ]);
    const model = ["--base-url", server.baseUrl, "--model", "m"];
    const child = sandbox.spawn(["-p", "rewrite a.txt", "--yes", ...model, ...grants]);
    // The second request means the write ran and its record was logged.
    const deadline = Date.now() + 20_000;
    while (server.requests.length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(await read(`${sandbox.cwd}/a.txt`), "by the model\n");
    child.kill("SIGKILL");
    assertEquals((await child.output()).signal, "SIGKILL");
    await using pty = startPty(sandbox, ["--continue", ...model, ...grants]);
    await pty.waitFor((o) => o.includes("> "), "the prompt");
    await pty.type("/undo\r");
    await pty.waitFor((o) => o.includes("Restored: a.txt"), "the undo report");
    assert(pty.output.includes("was cut short"), pty.output);
    assertEquals(await read(`${sandbox.cwd}/a.txt`), "original\n");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "harness -p --output-format json says that checkpoints failed",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    const git = gitWrapper(sandbox.home);
    Deno.writeTextFileSync(git.fail, "");
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "a.txt", content: "x" }),
      reply().text("Done."),
    ]);
    const out = await sandbox.run(
      ["-p", "write", "--output-format", "json", ...yesArgs(server)],
      { env: { PATH: git.path } },
    );
    assertEquals(out.code, 0, out.stderr);
    const final = JSON.parse(out.stdout.trim().split("\n").at(-1)!);
    assertEquals(final.result, "Done.");
    assert(String(final.checkpoint_error).includes("No space left on device"), out.stdout);
  },
});

Deno.test({
  name: "harness leaves no index file of its own in the shadow repository when it exits",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    // Files for the baseline index the first command writes.
    for (let i = 0; i < 20; i++) await Deno.writeTextFile(`${sandbox.cwd}/f${i}.txt`, `${i}`);
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command: "echo x > x.txt" }),
      reply().text("Done."),
    ]);
    const out = await sandbox.run(["-p", "make x", "--allow-run", ...yesArgs(server)]);
    assertEquals(out.code, 0, out.stderr);
    assertEquals(await read(`${sandbox.cwd}/x.txt`), "x\n");
    const gitDir = workspaceDataDir(
      `${sandbox.env.XDG_DATA_HOME}/harness/checkpoints`,
      await Deno.realPath(sandbox.cwd),
    );
    const names = [...Deno.readDirSync(gitDir)].map((entry) => entry.name);
    assertEquals(names.filter((name) => /^(index-|watch-)/.test(name)), [], names.join(" "));
    // The turn's blobs were named by a kept commit on the way out.
    const refs = new Deno.Command("git", {
      args: [`--git-dir=${gitDir}`, "for-each-ref", "--format=%(refname)", "refs/harness/"],
      stdout: "piped",
    }).outputSync();
    assertEquals(new TextDecoder().decode(refs.stdout).trim().split("\n").length, 1);
  },
});
