// The approval prompt's "Edit" answer through the real CLI and a scripted model: $EDITOR (a
// real script) changes a call's arguments, the changed call runs once and the model is told
// how; an edit into a call a deny rule denies is refused; invalid JSON reopens the editor with
// the user's text; on a terminal, one short argument is edited on the line and the editor
// gets the terminal. The session log keeps both versions: stats count the change and a
// resumed session shows it.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox } from "../helpers/run_cli.ts";
import { type PtySession, startPty } from "../helpers/pty.ts";

const ARGS = ["--model", "m", "--allow-read=.", "--allow-write=."];

/** Writes an executable editor script into HOME and returns the env that names it. */
async function editorScript(sandbox: CliSandbox, body: string): Promise<Record<string, string>> {
  const path = `${sandbox.home}/editor.sh`;
  await Deno.writeTextFile(path, `#!/bin/sh\nLOG="${sandbox.home}/editor.log"\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return { EDITOR: path, VISUAL: "" };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/**
 * Starts the REPL on a pty against `server`, sends `message` and presses 5 (Edit) at the
 * permission prompt it raises.
 */
async function editOnTerminal(
  sandbox: CliSandbox,
  server: { baseUrl: string },
  options: { message: string; flags?: string[] },
): Promise<PtySession> {
  const pty = startPty(sandbox, ["--base-url", server.baseUrl, ...ARGS, ...(options.flags ?? [])]);
  await pty.waitFor((out) => out.includes("> "), "the prompt");
  await pty.type(`${options.message}\r`);
  await pty.waitFor((out) => out.includes("[5] Edit"), "the permission prompt");
  await pty.type("5");
  return pty;
}

/** Waits until the REPL's prompt is drawn again (the turn ended), then gives `keys` to type. */
async function atPrompt(pty: PtySession, keys: string): Promise<string> {
  await pty.waitFor((out) => out.split("\n").at(-1)!.includes("> "), "the prompt again");
  return keys;
}

function toolResults(server: { requests: { messages: { role: string; content?: unknown }[] }[] }) {
  return server.requests.at(-1)!.messages.filter((m) => m.role === "tool").map((m) =>
    JSON.parse(String(m.content))
  );
}

Deno.test({
  name:
    "REPL: Edit opens $EDITOR on the arguments; the changed write runs once and the model is told",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    // The editor records the file's mode, then changes the path.
    const env = await editorScript(
      sandbox,
      `stat -c %a "$1" >> "$LOG"; echo "$1" >> "$LOG"\nsed -i 's/"a.txt"/"b.txt"/' "$1"`,
    );
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "a.txt", content: "A" }),
      reply().text("Noted: b.txt."),
    ]);
    const out = await sandbox.run(["--base-url", server.baseUrl, ...ARGS], {
      stdin: "write a\n5\n1\n/exit\n",
      env,
    });
    assertEquals(out.code, 0, out.stderr);
    match(out.stdout, /\[4\] Deny {2}\[5\] Edit\n/);
    match(out.stdout, /Changed call {2}write_file {2}\{"path": "b.txt", "content": "A"\}/);
    match(out.stdout, / {2}~ path: "a.txt" → "b.txt"\n/);
    assertEquals(await Deno.readTextFile(`${sandbox.cwd}/b.txt`), "A");
    assert(!await exists(`${sandbox.cwd}/a.txt`), "the model's version ran");
    const [result] = toolResults(server);
    assert(
      result.data.startsWith(
        'The user changed this call before running it: path was "a.txt", ran "b.txt"\n\n',
      ),
      result.data,
    );
    // The temporary file was private to the user and is gone.
    const [mode, file] = (await Deno.readTextFile(`${sandbox.home}/editor.log`)).trim().split("\n");
    assertEquals(mode, "600");
    assert(file && !await exists(file), `${file} is left behind`);
    assertEquals(server.pairingErrors, []);

    // The session log: stats count the change, and the resumed session shows both versions.
    const stats = await sandbox.run(["stats", "--json"]);
    assertEquals(stats.code, 0, stats.stderr);
    const json = JSON.parse(stats.stdout.trim().split("\n").at(-1)!) as {
      tools: { tool: string; approvals: { approved: number; changed: number } }[];
    };
    const write = json.tools.find((tool) => tool.tool === "write_file");
    assertEquals([write?.approvals.changed, write?.approvals.approved], [1, 0]);
    const resumed = await sandbox.run(["--base-url", server.baseUrl, ...ARGS, "--continue"], {
      stdin: "/exit\n",
    });
    assertEquals(resumed.code, 0, resumed.stderr);
    match(resumed.stdout, /· write_file \{"path":"a.txt","content":"A"\}\n/);
    match(resumed.stdout, /changed by you before it ran: \{"path":"b.txt","content":"A"\}/);
  },
});

Deno.test({
  name: "REPL: an edit into a call a deny rule denies is refused; the user then denies",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
    await Deno.writeTextFile(
      `${sandbox.home}/.config/harness/policies.jsonc`,
      JSON.stringify({
        rules: [{
          tool: "write_file",
          match: { path: "secret*" },
          action: "deny",
          reason: "not the secrets",
        }],
      }),
    );
    const env = await editorScript(sandbox, `sed -i 's/"a.txt"/"secret.txt"/' "$1"`);
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "a.txt", content: "A" }),
      reply().text("Fine."),
    ]);
    const out = await sandbox.run(["--base-url", server.baseUrl, ...ARGS], {
      stdin: "write a\n5\n0\n4\nno\n/exit\n",
      env,
    });
    assertEquals(out.code, 0, out.stderr);
    match(out.stdout, /A policy rule denies the changed call: not the secrets\n/);
    assertEquals(out.stdout.match(/Permission request/g)?.length, 2, out.stdout);
    assert(!await exists(`${sandbox.cwd}/secret.txt`));
    assert(!await exists(`${sandbox.cwd}/a.txt`));
    assertEquals(toolResults(server)[0].error_message, "The user denied this call: no");
  },
});

Deno.test({
  name: "REPL: invalid JSON from the editor reopens it with the user's text",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    // First save: a stray comma; second: the comma gone (the file still has the first edit).
    const env = await editorScript(
      sandbox,
      `if grep -q '"b.txt",,' "$1"; then sed -i 's/"b.txt",,/"b.txt",/' "$1"; echo fixed >> "$LOG"
else sed -i 's/"a.txt",/"b.txt",,/' "$1"; echo broke >> "$LOG"; fi`,
    );
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "a.txt", content: "A" }),
      reply().text("ok"),
    ]);
    const out = await sandbox.run(["--base-url", server.baseUrl, ...ARGS], {
      stdin: "write a\n5\n5\n1\n/exit\n",
      env,
    });
    assertEquals(out.code, 0, out.stderr);
    match(out.stdout, /The changed arguments are not valid JSON: line \d+, column \d+: /);
    assertEquals(await Deno.readTextFile(`${sandbox.home}/editor.log`), "broke\nfixed\n");
    assertEquals(await Deno.readTextFile(`${sandbox.cwd}/b.txt`), "A");
  },
});

Deno.test({
  name: "REPL on a terminal: one short argument is edited on the line; the changed command runs",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.mkdir(`${sandbox.cwd}/build/tmp`, { recursive: true });
    await Deno.writeTextFile(`${sandbox.cwd}/build/keep.txt`, "keep");
    await Deno.writeTextFile(`${sandbox.cwd}/build/tmp/x.o`, "x");
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command: "rm -rf build" }),
      reply().text("Cleaned build/tmp."),
    ]);
    await using pty = await editOnTerminal(sandbox, server, {
      message: "clean the build",
      flags: ["--allow-run"],
    });
    // readline draws the prompt, then the model's command on the line to edit.
    await pty.waitFor(
      (out) =>
        out.replace(/\[\d+G/g, "").includes("command: \x1brm -rf build") ||
        out.includes("command: rm -rf build"),
      "the line with the command",
    );
    await pty.type("/tmp\r");
    await pty.waitFor((out) => out.includes("[0] Back to the model's call"), "the changed call");
    match(pty.output, /~ command: "rm -rf build" → "rm -rf build\/tmp"/);
    await pty.type("1");
    await pty.waitFor((out) => out.includes("Cleaned build/tmp."), "the answer");
    assert(await exists(`${sandbox.cwd}/build/keep.txt`), "the model's command ran");
    assert(!await exists(`${sandbox.cwd}/build/tmp`), "the changed command did not run");
    const [result] = toolResults(server);
    assert(
      result.data.startsWith(
        'The user changed this call before running it: command was "rm -rf build", ran ' +
          '"rm -rf build/tmp"',
      ),
      result.data,
    );
    await pty.type(await atPrompt(pty, "\x04"));
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: $EDITOR gets the terminal, and single keys work again after it",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    Object.assign(
      sandbox.env,
      await editorScript(
        sandbox,
        `[ -t 0 ] && echo tty >> "$LOG"\nsed -i 's/"A"/"B"/' "$1"`,
      ),
    );
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "a.txt", content: "A" }),
      reply().text("Wrote B."),
    ]);
    await using pty = await editOnTerminal(sandbox, server, { message: "write" });
    await pty.waitFor((out) => out.includes("[0] Back to the model's call"), "the changed call");
    // One key, no Enter: the terminal is back in raw mode.
    await pty.type("1");
    await pty.waitFor((out) => out.includes("Wrote B."), "the answer");
    assertEquals(await Deno.readTextFile(`${sandbox.home}/editor.log`), "tty\n");
    assertEquals(await Deno.readTextFile(`${sandbox.cwd}/a.txt`), "B");
    await pty.type(await atPrompt(pty, "\x04"));
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name:
    "REPL on a terminal (attack): a model's command with a carriage return is not typed into the line",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    // The editor only records that it opened; the file stays as it was.
    Object.assign(sandbox.env, await editorScript(sandbox, `echo opened >> "$LOG"`));
    await using server = startFakeLlmServer([
      // Typed into the line, "\r" would submit "touch ok.txt" as if the user wrote it.
      reply().toolCall("run_command", { command: "touch ok.txt\rtouch pwned.txt" }),
      reply().text("Understood."),
    ]);
    await using pty = await editOnTerminal(sandbox, server, {
      message: "go",
      flags: ["--allow-run"],
    });
    await pty.waitFor((out) => out.includes("No change: back"), "the unchanged editor file");
    assert(!pty.output.includes("Changed call"), pty.output);
    assertEquals(await Deno.readTextFile(`${sandbox.home}/editor.log`), "opened\n");
    await pty.type("4");
    await pty.waitFor((out) => out.includes("Reason for the model"), "the reason question");
    await pty.type("\r");
    await pty.waitFor((out) => out.includes("Understood."), "the answer");
    assert(!await exists(`${sandbox.cwd}/ok.txt`) && !await exists(`${sandbox.cwd}/pwned.txt`));
    await pty.type(await atPrompt(pty, "\x04"));
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL: a changed file edit is shown as the diff it would write, then runs",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "alpha\nbeta\ngamma\n");
    const env = await editorScript(sandbox, `sed -i 's/"BETA two"/"BETA three"/' "$1"`);
    await using server = startFakeLlmServer([
      reply().toolCall("edit_file", { path: "a.txt", old_string: "beta", new_string: "BETA two" }),
      reply().text("edited"),
    ]);
    const out = await sandbox.run(["--base-url", server.baseUrl, ...ARGS], {
      stdin: "change beta\n5\n1\n/exit\n",
      env,
    });
    assertEquals(out.code, 0, out.stderr);
    // The model's call showed its diff; the changed call shows the diff of what it will write.
    const changed = out.stdout.slice(out.stdout.indexOf("Changed call"));
    assert(out.stdout.indexOf("      2 + BETA two") < out.stdout.indexOf("Changed call"));
    assert(changed.includes('  ~ new_string: "BETA two" → "BETA three"\n'), changed);
    assert(changed.includes("      2 + BETA three"), changed);
    assert(!changed.includes("BETA two\n"), changed);
    assertEquals(await Deno.readTextFile(`${sandbox.cwd}/a.txt`), "alpha\nBETA three\ngamma\n");
  },
});
