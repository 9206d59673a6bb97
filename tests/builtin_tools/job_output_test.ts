import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import runCommand from "../../plugins/run_command.ts";
import jobOutput from "../../plugins/job_output.ts";
import jobList from "../../plugins/job_list.ts";
import { expectToolError, makeToolContext, runTool } from "../helpers/tool_context.ts";

const unix = Deno.build.os !== "windows";

/** The job id in run_command's answer. */
function jobId(output: string): string {
  const id = /job (j\d+)/.exec(output)?.[1];
  assert(id, output);
  return id;
}

Deno.test({
  name: "job_output returns only the output new since the last read, then one quiet line",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext();
    const started = Date.now();
    const { output } = await runTool(
      runCommand,
      { command: "echo one; read line; echo two", background: true },
      ctx,
    );
    assert(Date.now() - started < 2000, "returned at once");
    assert(output.startsWith("Started job j1 in the background"), output);
    const id = jobId(output);
    const first = await runTool(jobOutput, { id, wait_seconds: 5 }, ctx);
    assert(first.output.startsWith("one\n[j1 running"), first.output);
    const quiet = await runTool(jobOutput, { id }, ctx);
    assert(/^no new output, running \d+(ms|s)$/.test(quiet.output), quiet.output);
    // A short line: far under 20 tokens of any tokenizer (4 characters each at most here).
    assert(quiet.output.length <= 40, quiet.output);
    await expectToolError(jobOutput, { id: "j9" }, ctx, "not_found");
    assertEquals((await runTool(jobList, {}, ctx)).output.split("\n").length, 1);
  },
});

Deno.test({
  name: "run_command moves a command still running after command_background_after to a job",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext({}, { backgroundAfterMs: 300 });
    const { output } = await runTool(
      runCommand,
      { command: "echo early; sleep 1; echo late" },
      ctx,
    );
    assert(output.startsWith("early\n[still running after"), output);
    const id = jobId(output);
    let rest = "";
    for (let i = 0; i < 20 && !rest.includes("exited"); i++) {
      rest += (await runTool(jobOutput, { id, wait_seconds: 1 }, ctx)).output;
    }
    assert(rest.startsWith("late\n") && rest.includes("exited 0 after"), rest);
    // Nothing is new since: the end is said without output.
    assert((await runTool(jobOutput, { id }, ctx)).output.startsWith("no new output; exited 0"));
  },
});

Deno.test({
  name: "run_command with timeout_ms still kills instead of moving to the background",
  ignore: !unix,
  fn: async () => {
    await using ctx = await makeToolContext({}, { backgroundAfterMs: 100 });
    const message = await expectToolError(
      runCommand,
      { command: "sleep 5", timeout_ms: 400 },
      ctx,
      "timeout",
    );
    assert(message.includes("killed after 400 ms"), message);
    assertEquals(ctx.jobs.summaries(), []);
  },
});

Deno.test({
  name: "a background job waiting for input is flagged within 5 s",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using ctx = await makeToolContext();
    for (const command of ["printf 'Proceed? [y/N] '; read answer", "echo building; sleep 30"]) {
      await runTool(runCommand, { command, background: true }, ctx);
    }
    const started = Date.now();
    let listed = "";
    while (Date.now() - started < 5000 && !listed.includes("waits for input")) {
      await new Promise((settle) => setTimeout(settle, 200));
      listed = (await runTool(jobList, {}, ctx)).output;
    }
    const [asking, building] = listed.split("\n");
    assert(asking?.includes('waits for input after "Proceed? [y/N]"'), listed);
    assert(!building?.includes("waits for input"), listed);
    const read = await runTool(jobOutput, { id: "j1" }, ctx);
    assert(read.output.includes("job_kill it"), read.output);
  },
});
