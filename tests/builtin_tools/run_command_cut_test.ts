// A command output cut by the jobs (run_command, a command moved to the background, a stopped
// command, job_output) gives the host what it cut and the log that holds it, and the host's
// result (callResult, as the tool host builds it) carries them in metadata.truncated.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import runCommand from "../../plugins/run_command.ts";
import jobOutput from "../../plugins/job_output.ts";
import { callResult } from "../../src/sandbox/workers/call_end.ts";
import type { ToolContext, ToolDefinition, ToolOutput } from "../../src/tools/define_tool.ts";
import { expectToolError, makeToolContext } from "../helpers/tool_context.ts";

const unix = Deno.build.os !== "windows";

/** Runs a tool as the host does: its output, then the result the model and the log get. */
async function hostRun(tool: ToolDefinition, args: unknown, ctx: ToolContext) {
  const output: ToolOutput = await tool.run(tool.parameters.parse(args), ctx);
  const run = await callResult(tool.name, { data: output.output, ...output }, {
    started: performance.now(),
    state: {},
    limits: { dataDir: ctx.dataDir!, toolOutputLimit: ctx.outputLimit ?? 30_000 },
  });
  return { output, result: run.result };
}

Deno.test({
  name: "a cut run_command result's metadata names the log, what it holds and the real size",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext({}, { logBytes: 64 * 1024 });
    ctx.outputLimit = 5000;
    // 588,895 bytes, past the log's 64 KiB cap.
    const { output, result } = await hostRun(runCommand, { command: "seq 1 100000" }, ctx);
    assert(
      output.output.includes("the first 64.0 KB of the 575.1 KB output saved to"),
      output.output,
    );
    const truncated = result.metadata.truncated!;
    const path = truncated.full_output_path!;
    assert(output.output.includes(`saved to "${path}"`), output.output);
    assertEquals(
      [truncated.unit, truncated.saved_bytes, truncated.output_bytes],
      ["bytes", 64 * 1024, 588_895],
    );
    assertEquals(truncated.cut, output.cutOutput?.bytes);
    assert(truncated.cut > 580_000, String(truncated.cut));
    assertEquals(result.data, output.output);
    assertEquals((await Deno.stat(path)).size, 64 * 1024);

    // Output that fits leaves no metadata and no log.
    const small = await hostRun(runCommand, { command: "seq 1 10" }, ctx);
    assertEquals(small.result.metadata.truncated, undefined);
  },
});

Deno.test({
  name: "a command moved to the background and job_output's cut reads give the same metadata",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext({}, { backgroundAfterMs: 1000 });
    ctx.outputLimit = 3000;
    const moved = await hostRun(
      runCommand,
      { command: "seq 1 20000; while [ ! -e go ]; do sleep 0.05; done; seq 1 30000" },
      ctx,
    );
    assert(moved.output.output.includes("moved to the background as job j1"), moved.output.output);
    const first = moved.result.metadata.truncated!;
    assertEquals([first.unit, first.output_bytes], ["bytes", 108_894]);
    assert(first.full_output_path?.endsWith(".log"), JSON.stringify(first));

    await ctx.write({ go: "" });
    while (ctx.jobs.summaries()[0]?.state === "running") {
      await new Promise((settle) => setTimeout(settle, 50));
    }
    const read = await hostRun(jobOutput, { id: "j1" }, ctx);
    assert(read.output.output.includes("[j1 exited 0 after"), read.output.output.slice(-200));
    const later = read.result.metadata.truncated!;
    assertEquals(later.full_output_path, first.full_output_path);
    assertEquals([later.unit, later.output_bytes, later.saved_bytes], [
      "bytes",
      108_894 + 168_894,
      108_894 + 168_894,
    ]);
    assert(later.cut > 160_000, String(later.cut));
    assert(read.output.output.includes(`saved to "${later.full_output_path}"`));
  },
});

Deno.test({
  name: "a timed-out command's short message names the log that holds its whole output",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext();
    const message = await expectToolError(
      runCommand,
      { command: "seq 1 100000; sleep 5", timeout_ms: 1000 },
      ctx,
      "timeout",
    );
    assert(message.length < 10_500, String(message.length));
    const path = /the whole output \(575\.1 KB\) saved to "([^"]+)"/.exec(message)?.[1];
    assert(path, message);
    assertEquals((await Deno.stat(path)).size, 588_895);
  },
});
