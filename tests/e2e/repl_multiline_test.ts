// Multi-line messages in the REPL on a real pseudo-terminal: a bracketed paste is one message
// (its markers never leak into it; a long one shows as [pasted N lines]), Alt-Enter and Ctrl-J
// start a new line, Ctrl-G edits the message in $EDITOR.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { type FakeLlmServer, reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startPty } from "../helpers/pty.ts";

const linux = Deno.build.os === "linux";
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** The content of the last user message of the last request. */
function lastUserMessage(server: FakeLlmServer): unknown {
  const messages = server.requests.at(-1)!.messages.filter((m) => m.role === "user");
  return messages.at(-1)?.content;
}

Deno.test({
  name: "REPL on a terminal: a pasted block of two lines is one message, markers and all removed",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().text("got it")]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
    await pty.waitFor((out) => out.includes("> "), "the prompt");
    // The REPL asks the terminal for bracketed paste.
    await pty.waitFor((out) => out.includes("\x1b[?2004h"), "bracketed paste turned on");
    await pty.type(`${PASTE_START}first line\rsecond line${PASTE_END}`);
    await pty.waitFor((out) => out.includes("second line"), "the paste on screen");
    assertEquals(server.requests.length, 0);
    await pty.type("\r");
    await pty.waitFor((out) => out.includes("got it"), "the answer");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
    // A line the paste's Enter sent early would have been a request of its own.
    assertEquals(server.requests.length, 1);
    assertEquals(lastUserMessage(server), "first line\nsecond line");
  },
});

Deno.test({
  name: "REPL on a terminal: a long paste shows [pasted N lines] and is sent whole",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().text("read it")]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
    await pty.waitFor((out) => out.includes("\x1b[?2004h"), "the prompt");
    const lines = Array.from({ length: 12 }, (_, i) => `row ${i + 1}`);
    await pty.type(`explain: ${PASTE_START}${lines.join("\r")}\r${PASTE_END}`);
    await pty.waitFor((out) => out.includes("[pasted 12 lines]"), "the paste marker");
    assert(!pty.output.includes("row 5"), pty.output);
    await pty.type("thanks\r");
    await pty.waitFor((out) => out.includes("read it"), "the answer");
    assertEquals(lastUserMessage(server), `explain: ${lines.join("\n")}\nthanks`);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: Alt-Enter and Ctrl-J start a new line of the same message",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().text("three lines")]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
    await pty.waitFor((out) => out.includes("\x1b[?2004h"), "the prompt");
    await pty.type("one\x1b\r");
    await pty.waitFor((out) => out.includes("… "), "the continuation prompt");
    await pty.type("two\n");
    await pty.waitFor((out) => out.split("… ").length > 2, "the second continuation prompt");
    await pty.type("three\r");
    await pty.waitFor((out) => out.includes("three lines"), "the answer");
    assertEquals(server.requests.length, 1);
    assertEquals(lastUserMessage(server), "one\ntwo\nthree");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: Ctrl-G edits the message in $EDITOR",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().text("edited answer")]);
    // An "editor" that keeps what was typed and adds two lines.
    const editor = join(sandbox.home, "editor.sh");
    await Deno.writeTextFile(
      editor,
      '#!/bin/sh\nprintf "%s\\nfrom the editor\\nlast line\\n" "$(cat "$1")" > "$1"\n',
    );
    await Deno.chmod(editor, 0o755);
    sandbox.env.EDITOR = editor;
    sandbox.env.VISUAL = "";
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
    await pty.waitFor((out) => out.includes("\x1b[?2004h"), "the prompt");
    await pty.type("typed first\x07");
    await pty.waitFor((out) => out.includes("from the editor"), "the edited lines");
    await pty.type(" and more\r");
    await pty.waitFor((out) => out.includes("edited answer"), "the answer");
    assertEquals(lastUserMessage(server), "typed first\nfrom the editor\nlast line and more");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: Tab completes an @ path and a slash command",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(join(sandbox.cwd, "notes-for-you.md"), "hello\n");
    await Deno.writeTextFile(join(sandbox.cwd, ".gitignore"), "ignored-notes.md\n");
    await Deno.writeTextFile(join(sandbox.cwd, "ignored-notes.md"), "x\n");
    await using server = startFakeLlmServer([reply().text("done")]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m", "-R"]);
    await pty.waitFor((out) => out.includes("\x1b[?2004h"), "the prompt");
    await pty.type("read @no\t");
    await pty.waitFor((out) => out.includes("notes-for-you.md"), "the completed path");
    await pty.type(" please\r");
    await pty.waitFor((out) => out.includes("done"), "the answer");
    assert(
      String(lastUserMessage(server)).startsWith("read @notes-for-you.md please\n\n<file"),
      String(lastUserMessage(server)),
    );
    await pty.type("/he\t");
    await pty.waitFor((out) => out.includes("/help"), "the completed command");
    await pty.type("\r\x04");
    assertEquals(await pty.exit(), 0);
  },
});
