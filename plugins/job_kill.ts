// Built-in tool job_kill: stops a background job and everything it started (what it put in
// the background, detached with setsid or nohup, or forked twice: on Linux the job's own PID
// namespace ends with it), then says how it ended.

import { z } from "zod";
import { defineTool, ToolError } from "../src/tools/define_tool.ts";
import { jobState } from "../src/jobs/job_control.ts";

export default defineTool({
  name: "job_kill",
  description: "Stop a background job and every process it started.",
  risk: "low",
  parameters: z.object({
    id: z.string().min(1).describe('The job id run_command gave, e.g. "j1".'),
  }),
  async run({ id }, ctx) {
    if (!ctx.jobs) throw new ToolError("internal_error", "job_kill was not given harness's jobs");
    const reply = await ctx.jobs.kill(id);
    if ("unknown" in reply) throw new ToolError("not_found", reply.unknown);
    const { job } = reply;
    const unread = job.unreadBytes > 0 ? `; job_output("${job.id}") reads its last output` : "";
    const output = reply.wasRunning
      ? `Stopped ${job.id} and every process it started (${jobState(job)})${unread}`
      : `${job.id} had already ended (${jobState(job)})${unread}`;
    return { output, display: `${job.id}: ${jobState(job)}` };
  },
});
