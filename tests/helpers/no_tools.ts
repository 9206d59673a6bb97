// Test helper: a tool set with no tools, for tests whose subject sits above the tools (slash
// commands, a conversation that calls nothing).

import { ToolSet } from "../../src/tools/tool_set.ts";
import type { ToolScope } from "../../src/sandbox/grants/tool_offer.ts";

/**
 * Tools that list none.
 *
 * @example
 * ```ts
 * import { noTools } from "./no_tools.ts";
 * if (noTools.set.entries().length !== 0) throw new Error();
 * ```
 */
export const noTools: ToolScope = { set: new ToolSet([]) };
