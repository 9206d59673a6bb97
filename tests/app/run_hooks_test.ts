// Hooks through a real conversation: the built-in tools in their sandbox, the run's hooks as
// app/ builds them from settings, real shell and Python scripts in Claude Code's protocol, and
// a scripted model. What the model reads next is checked in its requests.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Conversation } from "../../src/agent/conversation.ts";
import { answer, callTools, ScriptedProvider } from "../../src/providers/scripted.ts";
import { openRunHooks } from "../../src/app/run_hooks.ts";
import type { HooksConfig } from "../../src/config/hooks_config.ts";
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";
import { EventLog, openLoopHost, RecordingApprover, toolScope } from "../helpers/loop_host.ts";
import type { Message } from "../../src/messages.ts";

const posix = Deno.build.os !== "windows";
const nullRecorder = { id: null, record: () => {}, end: () => {} };
const signal = () => new AbortController().signal;
const command = (text: string, timeout?: number) => ({
  type: "command" as const,
  command: text,
  ...(timeout ? { timeout } : {}),
});

async function conversationWith(
  hooks: HooksConfig,
  steps: ConstructorParameters<typeof ScriptedProvider>[0],
  host: Awaited<ReturnType<typeof openLoopHost>>,
  approver = new RecordingApprover(),
) {
  const runHooks = await openRunHooks({ hooks }, {
    cwd: host.workspace,
    grants: emptyGrants(),
    yes: false,
    model: "m",
    sessionId: () => "s1",
  });
  assert(runHooks);
  const provider = new ScriptedProvider(steps);
  const conversation = new Conversation({
    provider,
    tools: toolScope(host.host),
    approver,
    recorder: nullRecorder,
    limits: { maxIterations: 6, maxToolCalls: 5 },
    window: {},
    stages: { call: runHooks.call, turn: [runHooks.turn] },
  }, { messages: [{ kind: "system", content: "sys" }] });
  return { conversation, provider, approver };
}

function toolResult(messages: Message[]): Record<string, unknown> {
  const last = messages.findLast((m) => m.kind === "tool_result");
  assert(last);
  return JSON.parse(last.content);
}

/** Claude Code's documented kind of PreToolUse validator, run unchanged. */
const CHECK_COMMAND = fileURLToPath(new URL("../fixtures/hooks/check_command.py", import.meta.url));

Deno.test({
  name: "a Claude Code style PreToolUse script blocks a command; the model reads its stderr",
  ignore: !posix,
  async fn() {
    await using h = await openLoopHost({
      builtins: true,
      grants: ["--allow-read=.", "--allow-run"],
    });
    const { conversation, provider, approver } = await conversationWith(
      { PreToolUse: [{ matcher: "Bash", hooks: [command(`python3 ${CHECK_COMMAND}`)] }] },
      [callTools([{ name: "run_command", args: { command: "grep -r TODO ." } }]), answer("ok")],
      h,
    );
    const outcome = await conversation.send("find TODOs", new EventLog().sink, signal());
    assertEquals(outcome.stopReason, "answered");
    assertEquals(approver.requests.length, 0, "a blocked call is not asked about");
    const result = toolResult(provider.requests[1]!);
    assertEquals(result.error_type, "permission_denied");
    assertEquals(
      result.error_message,
      "Blocked by a PreToolUse hook: • Use 'rg' (ripgrep) instead of 'grep'",
    );
  },
});

Deno.test({
  name: "PreToolUse updatedInput changes what runs; allow skips the approver's question",
  ignore: !posix,
  async fn() {
    await using h = await openLoopHost({
      builtins: true,
      grants: ["--allow-read=.", "--allow-write=."],
    });
    const output = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        updatedInput: { file_path: join(h.workspace, "b.txt"), content: "from the hook" },
      },
    });
    const asked: string[] = [];
    const approver = new RecordingApprover((request) => {
      asked.push(request.hook ?? "none");
      return request.hook === "allow"
        ? { decision: "allow", by: "mode", rule: "PreToolUse hook" }
        : { decision: "deny", by: "user" };
    });
    const { conversation } = await conversationWith(
      { PreToolUse: [{ matcher: "Write", hooks: [command(`cat > /dev/null; echo '${output}'`)] }] },
      [
        callTools([{ name: "write_file", args: { path: "a.txt", content: "model" } }]),
        answer("ok"),
      ],
      h,
      approver,
    );
    await conversation.send("write", new EventLog().sink, signal());
    assertEquals(asked, ["allow"]);
    assertEquals(Deno.readTextFileSync(join(h.workspace, "b.txt")), "from the hook");
    assertEquals(await Deno.stat(join(h.workspace, "a.txt")).then(() => true, () => false), false);
  },
});

Deno.test({
  name: "PostToolUse decision block and additionalContext reach the model with the result",
  ignore: !posix,
  async fn() {
    await using h = await openLoopHost({
      builtins: true,
      grants: ["--allow-read=.", "--allow-write=."],
    });
    const log = join(h.workspace, "post.json");
    const output = JSON.stringify({
      decision: "block",
      reason: "lint failed: missing semicolon",
      hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "style: standard" },
    });
    const { conversation, provider } = await conversationWith(
      {
        PostToolUse: [{
          matcher: "Edit|Write",
          hooks: [command(`cat > '${log}'; echo '${output}'`)],
        }],
      },
      [callTools([{ name: "write_file", args: { path: "a.js", content: "x" } }]), answer("ok")],
      h,
    );
    await conversation.send("write", new EventLog().sink, signal());
    const result = toolResult(provider.requests[1]!);
    assert(String(result.data).includes("[Hook feedback] lint failed: missing semicolon"));
    assert(String(result.data).includes("[Hook context] style: standard"));
    const input = JSON.parse(Deno.readTextFileSync(log));
    assertEquals(input.hook_event_name, "PostToolUse");
    assertEquals(input.tool_name, "Write");
    assertEquals(input.tool_input.file_path, join(h.workspace, "a.js"));
    assertEquals(input.tool_response.success, true);
    assertEquals(input.tool_response.filePath, join(h.workspace, "a.js"));
  },
});

Deno.test({
  name: "a Stop hook sends the model back once; stop_hook_active lets it stop",
  ignore: !posix,
  async fn() {
    await using h = await openLoopHost({ builtins: true });
    const script = `input=$(cat); if echo "$input" | grep -q '"stop_hook_active":false'; then ` +
      `echo 'run the tests first' >&2; exit 2; fi`;
    const { conversation, provider } = await conversationWith(
      { Stop: [{ hooks: [command(script)] }] },
      [answer("done"), answer("tests pass, done")],
      h,
    );
    const outcome = await conversation.send("fix it", new EventLog().sink, signal());
    assertEquals(outcome.text, "tests pass, done");
    assertEquals(provider.requests.length, 2);
    assertEquals(provider.requests[1]!.at(-1), {
      kind: "user",
      content: "[Stop hook] run the tests first",
    });
  },
});

Deno.test({
  name: "UserPromptSubmit: stdout goes with the message; exit 2 sends nothing and says why",
  ignore: !posix,
  async fn() {
    await using h = await openLoopHost({ builtins: true });
    const hooks: HooksConfig = {
      UserPromptSubmit: [{
        hooks: [
          command(`if grep -q secret; then echo 'no secrets' >&2; exit 2; fi; echo 'Branch: main'`),
        ],
      }],
    };
    const { conversation, provider } = await conversationWith(hooks, [answer("ok")], h);
    await conversation.send("what branch?", new EventLog().sink, signal());
    assertEquals(provider.requests[0]!.at(-1)?.content, "what branch?\n\nBranch: main");
    const display = new EventLog();
    const blocked = await conversation.send("my secret is 42", display.sink, signal());
    assertEquals(blocked.stopReason, "error");
    assertEquals(blocked.errorMessage, "Blocked by a UserPromptSubmit hook: no secrets");
    assertEquals(provider.requests.length, 1, "nothing was sent");
    assert(!conversation.messages.some((m) => m.content.includes("secret")));
  },
});

Deno.test({
  name: "a hanging hook is stopped at its timeout, said, and the turn goes on",
  ignore: !posix,
  async fn() {
    await using h = await openLoopHost({ builtins: true, grants: ["--allow-read=."] });
    Deno.writeTextFileSync(join(h.workspace, "a.txt"), "hello\n");
    const { conversation, provider } = await conversationWith(
      { PreToolUse: [{ matcher: "*", hooks: [command("sleep 60", 1)] }] },
      [callTools([{ name: "read_file", args: { path: "a.txt" } }]), answer("read it")],
      h,
    );
    const display = new EventLog();
    const started = Date.now();
    const outcome = await conversation.send("read a.txt", display.sink, signal());
    assert(Date.now() - started < 15_000);
    assertEquals(outcome.text, "read it");
    const warnings = display.of("warning").map((w) => w.message);
    assert(
      warnings.some((w) => w.includes('PreToolUse hook "sleep 60" timed out')),
      warnings.join("\n"),
    );
    assertEquals(toolResult(provider.requests[1]!).success, true);
  },
});

Deno.test({
  name: "hooks that print megabytes add at most a share of the window to the message, and say so",
  ignore: !posix,
  async fn() {
    await using h = await openLoopHost({ builtins: true });
    const flood = (mib: number) => `head -c ${mib * 1024 * 1024} /dev/zero | tr '\\0' x`;
    const { conversation, provider } = await conversationWith(
      { UserPromptSubmit: [{ hooks: [command(flood(50))] }] },
      [answer("ok")],
      h,
    );
    const display = new EventLog();
    await conversation.send("hi", display.sink, signal());
    const sent = provider.requests[0]!.at(-1)!.content;
    // The server's window is not known here: harness assumes 8,192 tokens; 10% of it each.
    assert(sent.length < 4_000, `the message carried ${sent.length} characters of hook output`);
    assert(sent.startsWith("hi\n\n"), sent.slice(0, 20));
    assert(sent.includes("[Hook output cut here:"), "the model is told where it was cut");
    const warnings = display.of("warning").map((e) => e.message);
    assert(
      warnings.some((w) => w.startsWith("UserPromptSubmit hook output cut for the model")),
      warnings.join("\n"),
    );
  },
});

Deno.test({
  name: "a failing hook's stderr is shown to the user as a few short lines",
  ignore: !posix,
  async fn() {
    await using h = await openLoopHost({ builtins: true });
    const noisy = `for i in $(seq 1 500); do echo "traceback line $i $(printf '%0300d' 0)" >&2; ` +
      `done; exit 1`;
    const { conversation } = await conversationWith(
      { UserPromptSubmit: [{ hooks: [command(noisy)] }] },
      [answer("ok")],
      h,
    );
    const display = new EventLog();
    await conversation.send("hi", display.sink, signal());
    const notice = display.of("warning").map((e) => e.message).find((w) => w.includes("failed"));
    assert(notice, "the failure is said");
    const lines = notice.split("\n");
    assert(lines.length <= 4, `${lines.length} lines`);
    // The first line names the hook (its command, shortened) before the excerpt.
    assert(lines.every((line) => line.length <= 320), "each line is short");
    assertEquals(lines.at(-1), "(497 more lines)");
  },
});
