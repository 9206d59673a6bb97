// Test helper: a ToolRunner with no tools, for tests whose subject sits above the tool host
// (MCP tools stacked on it, slash commands, a conversation that calls nothing).

import { ok } from "../../src/errors.ts";
import { makeToolResult } from "../../src/messages.ts";
import type { ToolRunner } from "../../src/tools/tool_runner.ts";

/**
 * A runner that lists no tools; a call, should one come, succeeds with no data.
 *
 * @example
 * ```ts
 * import { noTools } from "./no_tools.ts";
 * if (noTools.list().length !== 0) throw new Error();
 * ```
 */
export const noTools: ToolRunner = {
  list: () => [],
  validate: (_name, args) => Promise.resolve(ok(args)),
  run: (_name, _args, options) =>
    Promise.resolve({ result: makeToolResult({ data: "" }), state: options.state }),
  close: () => Promise.resolve(),
};
