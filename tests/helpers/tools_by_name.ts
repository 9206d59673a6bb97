// Test helper: the tools of one source called by name, as tests of a source (the MCP tools,
// the code tools) read best: list, validate and run through the entries the source hands in.

import type { Result } from "../../src/errors.ts";
import type { EntryCall, ToolInfo, ToolRun, ToolSource } from "../../src/tools/tool_entry.ts";
import { ToolSet } from "../../src/tools/tool_set.ts";

/** A source's entries by name. */
export interface ToolsByName {
  ready(): Promise<void>;
  list(): readonly ToolInfo[];
  validate(name: string, args: unknown): Promise<Result<unknown, string[]>>;
  run(name: string, args: unknown, call: EntryCall): Promise<ToolRun>;
  close(): Promise<void>;
}

/**
 * Calls a source's entries by name (an unknown name throws: a test bug).
 *
 * @example
 * ```ts
 * import { toolsByName } from "./tools_by_name.ts";
 * const tools = toolsByName({ entries: () => [] });
 * if (tools.list().length !== 0) throw new Error();
 * ```
 */
export function toolsByName(source: ToolSource): ToolsByName {
  const set = new ToolSet([source]);
  const entry = (name: string) => {
    const found = set.get(name);
    if (!found) throw new Error(`no tool "${name}"`);
    return found;
  };
  return {
    ready: () => set.ready(),
    list: () => set.entries().map((e) => e.info),
    validate: (name, args) => entry(name).validate(args),
    run: (name, args, call) => entry(name).run(args, call),
    close: () => set.close(),
  };
}
