// HookRunner with real commands: the stdin JSON Claude Code sends, exit codes and JSON output,
// matchers on both names, timeouts that stop the whole process group, and project hooks that
// do not run without a command sandbox.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { HookRunner, type HookSource } from "../../src/hooks/hook_runner.ts";
import { spawnAsUser } from "../../src/hooks/run_hook_command.ts";
import type { HooksConfig } from "../../src/config/hooks_config.ts";

const posix = Deno.build.os !== "windows";

async function workspace() {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_hooks_" }));
  return {
    dir,
    script(name: string, body: string): string {
      const path = join(dir, name);
      Deno.writeTextFileSync(path, body);
      Deno.chmodSync(path, 0o755);
      return path;
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function runner(cwd: string, hooks: HooksConfig, more: Partial<HookSource> = {}) {
  return new HookRunner({
    sources: [{ origin: "user", hooks, spawn: spawnAsUser, ...more }],
    cwd,
    sessionId: () => "session-1",
    permissionMode: "default",
    model: "qwen",
  });
}

const on = (matcher: string | undefined, command: string, timeout?: number) => [{
  ...(matcher === undefined ? {} : { matcher }),
  hooks: [{ type: "command" as const, command, ...(timeout ? { timeout } : {}) }],
}];

Deno.test({
  name: "HookRunner.preToolUse() sends Claude Code's JSON: Bash, tool_input.command, session_id",
  ignore: !posix,
  async fn() {
    await using ws = await workspace();
    const seen = join(ws.dir, "seen.json");
    const hooks = runner(ws.dir, { PreToolUse: on("Bash", `cat > '${seen}'`) });
    const outcome = await hooks.preToolUse({
      id: "call_1",
      name: "run_command",
      args: { command: "ls -la", timeout_ms: 1000, cwd: "." },
    });
    assertEquals(outcome, { notices: [] });
    const input = JSON.parse(Deno.readTextFileSync(seen));
    assertEquals(input, {
      session_id: "session-1",
      transcript_path: "",
      cwd: ws.dir,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls -la", timeout: 1000, cwd: "." },
      tool_use_id: "call_1",
      harness_tool_name: "run_command",
    });
  },
});

Deno.test({
  name: "HookRunner: a matcher names harness's tool or Claude Code's, plain or as a pattern",
  ignore: !posix,
  async fn() {
    await using ws = await workspace();
    const log = join(ws.dir, "log");
    const hooks = runner(ws.dir, {
      PreToolUse: [
        ...on("Edit|Write", `echo cc >> '${log}'`),
        ...on("write_file", `echo harness >> '${log}'`),
        ...on("^write", `echo pattern >> '${log}'`),
        ...on("Bash", `echo bash >> '${log}'`),
      ],
    });
    await hooks.preToolUse({ id: "c", name: "write_file", args: { path: "a", content: "" } });
    assertEquals(Deno.readTextFileSync(log).split("\n").filter(Boolean).sort(), [
      "cc",
      "harness",
      "pattern",
    ]);
  },
});

Deno.test({
  name: "HookRunner: exit 2 blocks with stderr; exit 1 is a notice and does not block",
  ignore: !posix,
  async fn() {
    await using ws = await workspace();
    const blocked = await runner(ws.dir, {
      PreToolUse: on("*", "echo 'Use rg, not grep' >&2; exit 2"),
    }).preToolUse({ id: "c", name: "run_command", args: { command: "grep x" } });
    assertEquals(blocked.block, "Use rg, not grep");
    const failed = await runner(ws.dir, {
      PreToolUse: on(undefined, "echo broken >&2; exit 1"),
    }).preToolUse({ id: "c", name: "run_command", args: { command: "ls" } });
    assertEquals(failed.block, undefined);
    assertEquals(failed.notices, [
      'PreToolUse hook "echo broken >&2; exit 1" failed (exit 1): broken',
    ]);
  },
});

Deno.test({
  name: "HookRunner: PreToolUse JSON output decides, with updatedInput and context",
  ignore: !posix,
  async fn() {
    await using ws = await workspace();
    const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;
    const deny = await runner(ws.dir, {
      PreToolUse: on(
        "Read",
        json({
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: ".env files are private",
          },
        }),
      ),
    }).preToolUse({ id: "c", name: "read_file", args: { path: ".env" } });
    assertEquals(deny.block, ".env files are private");
    const allow = await runner(ws.dir, {
      PreToolUse: on(
        "Bash",
        json({
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "allow",
            permissionDecisionReason: "read-only git",
            updatedInput: { command: "git status --short" },
            additionalContext: "the repo is clean",
          },
          systemMessage: "hook says hi",
        }),
      ),
    }).preToolUse({ id: "c", name: "run_command", args: { command: "git status" } });
    assertEquals(allow, {
      permission: "allow",
      updatedInput: { command: "git status --short" },
      context: "the repo is clean",
      notices: ["hook says hi", "read-only git"],
    });
    const legacy = await runner(ws.dir, {
      PreToolUse: on("Bash", json({ decision: "block", reason: "no" })),
    }).preToolUse({ id: "c", name: "run_command", args: { command: "x" } });
    assertEquals(legacy.block, "no");
  },
});

Deno.test({
  name: "HookRunner: a hanging hook is stopped at its timeout with its children, and said",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using ws = await workspace();
    const pidFile = join(ws.dir, "child.pid");
    const started = Date.now();
    const outcome = await runner(ws.dir, {
      Stop: on(undefined, `sleep 30 & echo $! > '${pidFile}'; wait`, 1),
    }).stop(false, "done");
    const took = Date.now() - started;
    assert(took < 10_000, `took ${took} ms`);
    assertEquals(outcome.block, undefined);
    assertEquals(outcome.notices.length, 1);
    assert(outcome.notices[0]!.startsWith(`Stop hook "sleep 30 & echo $!`));
    assert(outcome.notices[0]!.endsWith(`" timed out and was stopped after 1 s`));
    const pid = Number(Deno.readTextFileSync(pidFile).trim());
    assertEquals(await stops(pid), true, "the hook's child was stopped too");
  },
});

Deno.test({
  name: "HookRunner: UserPromptSubmit stdout is context; exit 2 blocks the prompt",
  ignore: !posix,
  async fn() {
    await using ws = await workspace();
    const context = await runner(ws.dir, {
      UserPromptSubmit: on(undefined, "jq -r '\"Asked: \" + .prompt'"),
    }).userPromptSubmit("fix the bug");
    assertEquals(context.context, "Asked: fix the bug");
    const blocked = await runner(ws.dir, {
      UserPromptSubmit: on(undefined, "echo 'no secrets in prompts' >&2; exit 2"),
    }).userPromptSubmit("my password is x");
    assertEquals(blocked.block, "no secrets in prompts");
  },
});

Deno.test({
  name: "HookRunner: SessionStart matches its source and adds stdout as context",
  ignore: !posix,
  async fn() {
    await using ws = await workspace();
    const hooks = runner(ws.dir, {
      SessionStart: [...on("startup", "echo fresh"), ...on("resume", "echo again")],
    });
    assertEquals((await hooks.sessionStart("startup")).context, "fresh");
    assertEquals((await hooks.sessionStart("resume")).context, "again");
    assertEquals((await hooks.sessionStart("clear")).context, undefined);
  },
});

Deno.test({
  name: "HookRunner: a project's hooks without a command sandbox are skipped with one notice",
  ignore: !posix,
  async fn() {
    await using ws = await workspace();
    const marker = join(ws.dir, "ran");
    const hooks = runner(ws.dir, { PreToolUse: on("*", `touch '${marker}'`) }, {
      origin: "project",
      spawn: { refused: "bubblewrap is not installed" },
    });
    const first = await hooks.preToolUse({ id: "c", name: "ls", args: {} });
    const second = await hooks.preToolUse({ id: "c", name: "ls", args: {} });
    assertEquals(first.notices.length, 1);
    assert(first.notices[0]!.includes("bubblewrap is not installed"));
    assertEquals(second.notices, []);
    assertEquals(await Deno.stat(marker).then(() => true, () => false), false);
  },
});

Deno.test({
  name: "HookRunner: the same command under two matchers runs once; hooks run together",
  ignore: !posix,
  async fn() {
    await using ws = await workspace();
    const log = join(ws.dir, "log");
    const started = Date.now();
    await runner(ws.dir, {
      PostToolUse: [
        ...on("Write", `echo a >> '${log}'; sleep 1`),
        ...on("write_file", `echo a >> '${log}'; sleep 1`),
        ...on("*", `sleep 1`),
      ],
    }).postToolUse({ id: "c", name: "write_file", args: { path: "x", content: "" } }, {});
    assertEquals(Deno.readTextFileSync(log), "a\n");
    assert(Date.now() - started < 1900, "the two commands ran at the same time");
  },
});

/** Whether a process is still running (a zombie nobody reaped counts as gone). */
/** Whether `pid` runs: not gone, nor a zombie nobody has reaped yet (a container's init may not). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(Deno.readTextFileSync(`/proc/${pid}/status`));
  } catch {
    return false;
  }
}

/** Whether `pid` stops running within 5 s (a kill, once sent, lands a moment later). */
async function stops(pid: number): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  while (running(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return !running(pid);
}

Deno.test({
  name:
    "HookRunner: a hook timing out with a setsid child holding its output ends the turn, child too",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using ws = await workspace();
    const pidFile = join(ws.dir, "child.pid");
    const started = Date.now();
    const outcome = await runner(ws.dir, {
      Stop: on(undefined, `setsid sleep 60 & echo $! > '${pidFile}'; sleep 30`, 1),
    }).stop(false, "done");
    const took = Date.now() - started;
    const pid = Number(Deno.readTextFileSync(pidFile).trim());
    try {
      assert(took < 10_000, `the turn waited ${took} ms for the child holding the pipes`);
      assert(
        outcome.notices[0]?.endsWith("timed out and was stopped after 1 s"),
        outcome.notices[0],
      );
      assertEquals(await stops(pid), true, "the child that left the process group was stopped too");
    } finally {
      if (running(pid)) Deno.kill(pid, "SIGKILL");
    }
  },
});

Deno.test({
  name: "HookRunner: a hook that exits leaving a setsid child on its pipes does not hold the turn",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using ws = await workspace();
    const pidFile = join(ws.dir, "child.pid");
    const started = Date.now();
    const outcome = await runner(ws.dir, {
      UserPromptSubmit: on(undefined, `setsid sleep 60 & echo $! > '${pidFile}'; echo ready`, 30),
    }).userPromptSubmit("hi");
    const took = Date.now() - started;
    const pid = Number(Deno.readTextFileSync(pidFile).trim());
    try {
      assert(took < 10_000, `the turn waited ${took} ms for the child holding the pipes`);
      assertEquals(outcome, { context: "ready", notices: [] });
    } finally {
      if (running(pid)) Deno.kill(pid, "SIGKILL");
    }
  },
});

Deno.test({
  name: "HookRunner: SessionStart context is cut to a share of the model's window, with a notice",
  ignore: !posix,
  async fn() {
    await using ws = await workspace();
    const hooks = new HookRunner({
      sources: [{
        origin: "user",
        spawn: spawnAsUser,
        hooks: { SessionStart: on(undefined, "head -c 5000000 /dev/zero | tr '\\0' y") },
      }],
      cwd: ws.dir,
      sessionId: () => "s",
      permissionMode: "default",
      model: "m",
      contextLength: () => 4096,
    });
    const outcome = await hooks.sessionStart("startup");
    // 10% of 4,096 tokens, about 4 characters each, and the note.
    assert(outcome.context!.length < 1800, `${outcome.context!.length} characters`);
    assert(outcome.context!.endsWith("(hooks may add about 10% of the 4,096-token window)]"));
    assertEquals(outcome.notices.length, 1);
    assert(
      /^SessionStart hook output cut for the model: [\d,]+ characters, the first 1,636 kept \(about 10% of the 4,096-token window\)$/
        .test(outcome.notices[0]!),
      outcome.notices[0],
    );
  },
});
