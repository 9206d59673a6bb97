import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/run_command.ts";
import { expectToolError, makeToolContext, runTool } from "../helpers/tool_context.ts";
import { uniqueSleep, waitUntilGone } from "../helpers/processes.ts";

const unix = Deno.build.os !== "windows";

Deno.test({
  name: "run_command returns stdout and stderr in order with the exit code",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext();
    const { output } = await runTool(tool, { command: "echo a; echo b >&2; echo c; exit 3" }, ctx);
    assertEquals(output, "a\nb\nc\nexit_code: 3");
  },
});

Deno.test({
  name: "run_command closes stdin and sets a non-interactive environment",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext();
    const { output } = await runTool(
      tool,
      {
        command:
          'cat; read x || echo "eof"; echo "$CI $GIT_TERMINAL_PROMPT $PAGER $GIT_PAGER $NO_COLOR $DEBIAN_FRONTEND"',
      },
      ctx,
    );
    assertEquals(output, "eof\n1 0 cat cat 1 noninteractive\nexit_code: 0");
  },
});

Deno.test({
  name: "run_command runs in cwd and reports empty output",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext({ "sub/x.txt": "" });
    assertEquals(
      (await runTool(tool, { command: "pwd", cwd: "sub" }, ctx)).output,
      `${ctx.workspace}/sub\nexit_code: 0`,
    );
    assertEquals(
      (await runTool(tool, { command: "true" }, ctx)).output,
      "(no output)\nexit_code: 0",
    );
    await expectToolError(tool, { command: "pwd", cwd: "nope" }, ctx, "not_found");
    await expectToolError(tool, { command: "pwd", cwd: "sub/x.txt" }, ctx, "validation_failed");
  },
});

Deno.test("run_command rejects a cwd that is absolute, escapes with .. or through a symlink", async () => {
  await using ctx = await makeToolContext();
  await Deno.symlink(ctx.outside, `${ctx.workspace}/out`);
  for (const cwd of [ctx.outside, "..", "out"]) {
    await expectToolError(tool, { command: "pwd", cwd }, ctx, "validation_failed");
  }
});

Deno.test({
  name: "run_command kills the whole process group on timeout and keeps the output",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext();
    const started = Date.now();
    const sleep = uniqueSleep();
    const message = await expectToolError(
      tool,
      { command: `echo started; sleep ${sleep} & sleep 30`, timeout_ms: 500 },
      ctx,
      "timeout",
    );
    assert(Date.now() - started < 5000, "returned promptly");
    assert(message.startsWith("started\n"), message);
    assert(message.includes("killed after 500 ms"), message);
    assert(await waitUntilGone(`sleep ${sleep}`), `grandchild sleep ${sleep} is still running`);
  },
});

Deno.test({
  name: "run_command kills the process group when the signal aborts",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext();
    setTimeout(() => ctx.abort(), 300);
    const sleep = uniqueSleep();
    const message = await expectToolError(
      tool,
      { command: `sleep ${sleep} & sleep 30` },
      ctx,
      "cancelled",
    );
    assert(message.includes("cancelled"), message);
    assert(await waitUntilGone(`sleep ${sleep}`), `grandchild sleep ${sleep} is still running`);
  },
});

Deno.test({
  name: "run_command does not hang on a background job that holds the output pipe",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext();
    const started = Date.now();
    const sleep = uniqueSleep();
    const { output } = await runTool(tool, { command: `sleep ${sleep} & echo done` }, ctx);
    assert(Date.now() - started < 5000, "returned promptly");
    assert(output.startsWith("done\n") && output.endsWith("exit_code: 0"), output);
    assert(await waitUntilGone(`sleep ${sleep}`));
  },
});

Deno.test({
  name: "run_command keeps the head and tail of long output and names the log that holds it all",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext();
    ctx.outputLimit = 30_000;
    const result = await tool.run(tool.parameters.parse({ command: "seq 1 300000" }), ctx);
    const { output } = result;
    assert(output.length <= 30_000, String(output.length));
    assert(output.startsWith("1\n2\n3\n"), output.slice(0, 20));
    assert(output.endsWith("299999\n300000\nexit_code: 0"), output.slice(-40));
    const saved = /saved to "([^"]+)": read_file it with offset (\d+)/.exec(output);
    assert(saved, output.slice(14_000, 15_000));
    const log = await Deno.readTextFile(saved[1]!);
    assertEquals(log.split("\n").length, 300_001);
    // The offset named is the first line left out.
    const first = Number(saved[2]);
    assert(output.includes(`\n${first - 1}\n[...`) && !output.includes(`\n${first}\n`), output);
    assertEquals(result.outputBytes, log.length);
  },
});

Deno.test({
  name: "run_command keeps a timed-out command's message short",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext();
    const message = await expectToolError(
      tool,
      // seq's 100,000 lines must be out before the timeout, also on a loaded machine.
      { command: "seq 1 100000; sleep 30", timeout_ms: 2000 },
      ctx,
      "timeout",
    );
    assert(message.length < 10_500, String(message.length));
    assert(message.includes("100000\nexit_code"), message.slice(-300));
  },
});

Deno.test("run_command caps timeout_ms at 600000 and leaves it unset by default", () => {
  assert(!tool.parameters.safeParse({ command: "x", timeout_ms: 600_001 }).success);
  assertEquals(tool.parameters.parse({ command: "x" }).timeout_ms, undefined);
  assertEquals(tool.parameters.parse({ command: "x" }).background, false);
});

Deno.test({
  name: "run_command kills the whole process group on timeout when commands run unconfined",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext({}, { commandSandbox: "off" });
    assert(!ctx.commands.confined);
    const sleep = uniqueSleep();
    const message = await expectToolError(
      tool,
      { command: `sleep ${sleep} > /dev/null 2>&1 & sleep 30`, timeout_ms: 500 },
      ctx,
      "timeout",
    );
    assert(message.includes("killed after 500 ms"), message);
    assert(await waitUntilGone(`sleep ${sleep}`), `grandchild sleep ${sleep} is still running`);
  },
});

Deno.test({
  name: "run_command stops a confined command's background jobs when the command ends",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using ctx = await makeToolContext();
    assert(ctx.commands.confined, ctx.commands.summary);
    const sleep = uniqueSleep();
    const { output } = await runTool(
      tool,
      { command: `sleep ${sleep} > /dev/null 2>&1 & echo started` },
      ctx,
    );
    assert(output.startsWith("started"), output);
    assert(await waitUntilGone(`sleep ${sleep}`), `background sleep ${sleep} is still running`);
  },
});

Deno.test({
  name: "run_command keeps harness under 250 MB while a command prints 67.5 MB",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using ctx = await makeToolContext();
    const main = new URL("../../main.ts", import.meta.url).pathname;
    const args = JSON.stringify({
      command: `yes ${"0123456789".repeat(7)} | head -c 67500000`,
    });
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-prompt",
        "--unstable-worker-options",
        "--v8-flags=--optimize-for-size",
        main,
        "tool",
        "run_command",
        args,
        "--allow-read=.",
        "--allow-run",
      ],
      cwd: ctx.workspace,
      env: { XDG_DATA_HOME: ctx.dataDir },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // VmHWM is the process's peak resident size; read it until the process is gone.
    let peakKb = 0;
    const output = child.output();
    let done = false;
    void output.finally(() => done = true);
    while (!done) {
      try {
        const status = Deno.readTextFileSync(`/proc/${child.pid}/status`);
        peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      } catch { /* exited */ }
      await new Promise((settle) => setTimeout(settle, 20));
    }
    const { stdout, code } = await output;
    const text = new TextDecoder().decode(stdout);
    assertEquals(code, 0, text.slice(-500));
    assert(
      text.includes("67.5 MB") || text.includes("64.4 MiB") || text.includes("saved to"),
      text,
    );
    assert(peakKb > 0 && peakKb < 250 * 1024, `peak resident size ${Math.round(peakKb / 1024)} MB`);
  },
});
