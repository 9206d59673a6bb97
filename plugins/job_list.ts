// Built-in tool job_list: the background jobs of this session, one line each: id, state
// (running for how long, or how it ended), command, unread output, and whether it waits for
// input.

import { z } from "zod";
import { defineTool, ToolError } from "../src/tools/define_tool.ts";
import { jobLine } from "../src/jobs/job_notes.ts";

export default defineTool({
  name: "job_list",
  description: "List the background jobs of this session with their ids and states.",
  risk: "safe",
  parameters: z.object({}),
  async run(_args, ctx) {
    if (!ctx.jobs) throw new ToolError("internal_error", "job_list was not given harness's jobs");
    const jobs = await ctx.jobs.list();
    return {
      output: jobs.length === 0 ? "No background jobs" : jobs.map(jobLine).join("\n"),
      display: `${jobs.length} jobs`,
    };
  },
});
