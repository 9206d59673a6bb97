// Built-in tool job_output: what a background job (run_command with background: true, or a
// command moved there) printed since the last read, head and tail kept when it is long (the
// whole output stays in the job's log file), and how the job stands. A read with nothing new
// is one short line, so polling a quiet server costs a few tokens.

import { z } from "zod";
import { defineTool, ToolError } from "../src/tools/define_tool.ts";
import { DEFAULT_TOOL_OUTPUT_LIMIT } from "../src/sandbox/workers/truncate_output.ts";
import { jobState } from "../src/jobs/job_control.ts";

export default defineTool({
  name: "job_output",
  description:
    "Read what a background job printed since the last read, and whether it still runs. Give wait_seconds to wait for new output or its end.",
  risk: "safe",
  parameters: z.object({
    id: z.string().min(1).describe('The job id run_command gave, e.g. "j1".'),
    wait_seconds: z.number().min(0).max(600).default(0).describe(
      "Wait up to this many seconds for new output or the job's end (default 0).",
    ),
  }),
  async run({ id, wait_seconds }, ctx) {
    if (!ctx.jobs) throw new ToolError("internal_error", "job_output was not given harness's jobs");
    const limit = Math.max(1000, (ctx.outputLimit ?? DEFAULT_TOOL_OUTPUT_LIMIT) - 200);
    const reply = await ctx.jobs.output(id, { limit, waitMs: Math.round(wait_seconds * 1000) });
    if ("unknown" in reply) throw new ToolError("not_found", reply.unknown);
    const { job, text } = reply;
    const state = jobState(job);
    const asks = job.waitingForInput === undefined
      ? ""
      : `; waits for input after "${job.waitingForInput}" (it gets none: job_kill it)`;
    if (text === "") {
      return {
        output: job.state === "running"
          ? `no new output, ${state}${asks}`
          : `no new output; ${state}`,
        display: `${job.id}: no new output`,
      };
    }
    const body = text.endsWith("\n") ? text.slice(0, -1) : text;
    return {
      output: `${body}\n[${job.id} ${state}${asks}]`,
      display: `${job.id}: ${state}`,
      // The result's metadata says what was cut of the new output and where the log is.
      ...(reply.cutBytes === 0 ? {} : {
        outputBytes: reply.bytes,
        cutOutput: {
          bytes: reply.cutBytes,
          ...(reply.path === undefined ? {} : { path: reply.path }),
        },
      }),
    };
  },
});
