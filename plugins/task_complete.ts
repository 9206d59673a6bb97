// Built-in tool task_complete: the model's way to end the run. Its summary becomes the
// final answer and `final: true` tells the loop to stop.

import { z } from "zod";
import { defineTool } from "../src/tools/define_tool.ts";

export default defineTool({
  name: "task_complete",
  description:
    "Finish the user's request. Give a short summary of what you did; it is shown as your final answer.",
  risk: "safe",
  parameters: z.object({
    summary: z.string().describe(
      "What was done and anything the user should know, in a few sentences.",
    ),
  }),
  run({ summary }) {
    return { output: summary, display: "Task complete", final: true };
  },
});
