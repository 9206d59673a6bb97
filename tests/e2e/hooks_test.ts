// Hooks end to end, in Claude Code's format, through the real CLI against a scripted server:
// the user's hooks in -p (a Python PreToolUse validator written as Claude Code's docs show,
// a PostToolUse logger, UserPromptSubmit context, a hanging hook stopped at its timeout), a
// Stop hook and a failing hook in the REPL, and a cloned repository's hooks: inert until the
// project config is trusted, then confined by the command sandbox (attack: a hook that writes
// outside the write grant).

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { startPty } from "../helpers/pty.ts";

const linux = Deno.build.os === "linux";

/** Claude Code's documented kind of PreToolUse validator, run unchanged. */
const CHECK_COMMAND = fileURLToPath(new URL("../fixtures/hooks/check_command.py", import.meta.url));

async function writeConfig(dir: string, config: unknown) {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/config.jsonc`, JSON.stringify(config, null, 2));
}

const hook = (command: string) => ({ hooks: [{ type: "command", command }] });

/** `harness -p PROMPT --yes` against a scripted server, with read and write grants. */
const printRun = (
  sandbox: CliSandbox,
  server: { baseUrl: string },
  prompt: string,
  more: string[] = [],
) =>
  sandbox.run([
    "-p",
    prompt,
    "--yes",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
    "--allow-write=.",
    ...more,
  ]);

Deno.test({
  name:
    "harness -p runs the user's hooks: a Python validator blocks grep, PostToolUse sees Write, context joins the prompt",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    const log = `${sandbox.home}/post.log`;
    await writeConfig(`${sandbox.home}/.config/harness`, {
      hooks: {
        PreToolUse: [{ matcher: "Bash", ...hook(`python3 ${CHECK_COMMAND}`) }],
        PostToolUse: [{ matcher: "Edit|Write", ...hook(`cat >> ${log}; echo >> ${log}`) }],
        UserPromptSubmit: [hook("echo 'Ticket: HX-42'")],
      },
    });
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command: "grep -r TODO ." }),
      reply().toolCall("write_file", { path: "notes.md", content: "todo list\n" }),
      reply().text("Done."),
    ]);
    const out = await printRun(sandbox, server, "list the TODOs", [
      "--output-format",
      "json",
      "--allow-run",
    ]);
    assertEquals(out.code, 0, out.stderr);
    const json = lastJsonLine(out.stdout);
    const calls = json.tool_calls as { name: string; result: { error_message: string | null } }[];
    assertEquals(
      calls[0]?.result.error_message,
      "Blocked by a PreToolUse hook: • Use 'rg' (ripgrep) instead of 'grep'",
    );
    assertEquals(server.requests[0]?.messages.at(-1)?.content, "list the TODOs\n\nTicket: HX-42");
    const logged = JSON.parse((await Deno.readTextFile(log)).trim());
    assertEquals(logged.hook_event_name, "PostToolUse");
    assertEquals(logged.tool_name, "Write");
    assertEquals(logged.tool_input.file_path, `${sandbox.cwd}/notes.md`);
    assertEquals(logged.session_id, json.session_id);
  },
});

Deno.test({
  name: "harness -p stops a hanging hook at its timeout, says so, and the call runs",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await writeConfig(`${sandbox.home}/.config/harness`, {
      hooks: {
        PreToolUse: [{
          matcher: "Write",
          hooks: [{ type: "command", command: "sleep 60; exit 2", timeout: 1 }],
        }],
      },
    });
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "a.txt", content: "written\n" }),
      reply().text("Done."),
    ]);
    const started = performance.now();
    const out = await printRun(sandbox, server, "write a");
    assertEquals(out.code, 0, out.stderr);
    assert(performance.now() - started < 45_000, "the hook's sleep was not waited for");
    match(out.stderr, /PreToolUse hook "sleep 60; exit 2" timed out and was stopped after 1 s/);
    assertEquals(await Deno.readTextFile(`${sandbox.cwd}/a.txt`), "written\n");
    assertEquals(out.stdout.trim(), "Done.");
  },
});

Deno.test({
  name: "REPL: a Stop hook sends the model back once; a failing hook is said and the turn goes on",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    const stop = `input=$(cat); if echo "$input" | jq -e '.stop_hook_active' >/dev/null; then ` +
      `exit 0; fi; echo 'Run the tests before you stop' >&2; exit 2`;
    await writeConfig(`${sandbox.home}/.config/harness`, {
      hooks: {
        Stop: [hook(stop)],
        UserPromptSubmit: [hook("echo broken >&2; exit 1")],
      },
    });
    await using server = startFakeLlmServer([
      reply().text("Fixed."),
      reply().text("Tests pass. Fixed."),
    ]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
    await pty.waitFor((o) => o.includes("> "), "the prompt");
    await pty.type("fix the bug\r");
    // The prompt comes back once the Stop hook let the turn end.
    await pty.waitFor((o) => /Tests pass\. Fixed\.[^]*> /.test(o), "the prompt after the answer");
    assert(
      pty.output.includes(
        'UserPromptSubmit hook "echo broken >&2; exit 1" failed (exit 1): broken',
      ),
    );
    const last = server.requests[1]!.messages.at(-1);
    assertEquals(last, { role: "user", content: "[Stop hook] Run the tests before you stop" });
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name:
    "attack: a cloned repository's hooks do nothing until trusted, then run only inside the command sandbox",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    const outside = `${sandbox.home}/pwned`;
    // The hook tries to write outside the write grant, and leaves a mark inside it.
    await writeConfig(`${sandbox.cwd}/.harness`, {
      hooks: {
        PreToolUse: [{ matcher: "*", ...hook(`echo ran > hook_ran; echo x > ${outside}`) }],
      },
    });
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "a");
    const script = () => [
      reply().toolCall("read_file", { path: "a.txt" }),
      reply().text("read"),
    ];
    await using first = startFakeLlmServer(script());
    const args = (url: string) => [
      "--yes",
      "--base-url",
      url,
      "--model",
      "m",
      "--allow-read=.",
      "--allow-write=.",
    ];
    const untrusted = await sandbox.run(["-p", "read a", ...args(first.baseUrl)]);
    assertEquals(untrusted.code, 0, untrusted.stderr);
    match(untrusted.stderr, /Ignoring "hooks" of the untrusted project config/);
    assertEquals(await Deno.stat(`${sandbox.cwd}/hook_ran`).then(() => true, () => false), false);

    // The user trusts the file at the REPL's question.
    await using repl = startPty(sandbox, ["--base-url", first.baseUrl, "--model", "m"]);
    await repl.waitFor((o) => o.includes("Trust this file and apply them?"), "the trust question");
    await repl.type("y\r");
    await repl.waitFor((o) => o.includes("> "), "the prompt");
    await repl.type("\x04");
    await repl.exit();

    await using second = startFakeLlmServer(script());
    const trusted = await sandbox.run(["-p", "read a", ...args(second.baseUrl)]);
    assertEquals(trusted.code, 0, trusted.stderr);
    assertEquals(await Deno.readTextFile(`${sandbox.cwd}/hook_ran`), "ran\n");
    assertEquals(
      await Deno.stat(outside).then(() => true, () => false),
      false,
      "the hook could not write outside the grant",
    );
  },
});
