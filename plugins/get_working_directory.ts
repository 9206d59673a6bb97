// Built-in tool get_working_directory: the absolute path of the workspace root, which every
// path parameter of the other tools is relative to.

import { z } from "zod";
import { defineTool } from "../src/tools/define_tool.ts";

export default defineTool({
  name: "get_working_directory",
  description: "Get the absolute path of the workspace; all tool paths are relative to it.",
  risk: "safe",
  parameters: z.object({}),
  run(_args, ctx) {
    return { output: ctx.workspace, display: ctx.workspace };
  },
});
