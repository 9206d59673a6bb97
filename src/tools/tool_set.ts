// The one flat set of a workspace's tools: each source hands in its entries once (the
// sandboxed plugins, then the code tools, then the MCP servers' tools), and the first entry of
// a name wins. Nothing wraps an entry: what the model is offered (src/sandbox/grants/tool_offer.ts)
// and what a call passes through (src/agent/call_driver.ts and the stages features register)
// are decided elsewhere, so an entry keeps its preview, images and limits as its source made
// them.
//
// Adding a source of tools that run in the host (as the code tools do): make an object with
// `entries()` returning `{ info, validate, run, preview? }` records (tool_entry.ts), keep the
// array the same while nothing changed, and put it in the list app/run_tools.ts builds. Its
// names must not clash with the built-in tools (the earlier source wins a clash).

import type { ToolEntry, ToolSource } from "./tool_entry.ts";
import type { ToolHandle } from "./builtin_tools.ts";

/** The tools of one workspace, from its sources in order. */
export class ToolSet {
  readonly #sources: readonly ToolSource[];
  #cache: { from: readonly (readonly ToolEntry[])[]; entries: ToolEntry[] } | undefined;

  constructor(sources: readonly ToolSource[]) {
    this.#sources = sources;
  }

  /** Resolves when every source's list is known. */
  async ready(): Promise<void> {
    await Promise.all(this.#sources.map((source) => source.ready?.()));
  }

  /** Every entry, in source order; the first entry of a name wins. */
  entries(): readonly ToolEntry[] {
    const taken = new Set<string>();
    const from = this.#sources.map((source) => {
      const listed = source.entries(taken);
      for (const entry of listed) taken.add(entry.info.name);
      return listed;
    });
    const cached = this.#cache;
    if (cached && cached.from.every((listed, index) => listed === from[index])) {
      return cached.entries;
    }
    const seen = new Set<string>();
    const entries = from.flat().filter((entry) => {
      if (seen.has(entry.info.name)) return false;
      seen.add(entry.info.name);
      return true;
    });
    this.#cache = { from, entries };
    return entries;
  }

  /** The entry of a name, if any source has it. */
  get(name: string): ToolEntry | undefined {
    return this.entries().find((entry) => entry.info.name === name);
  }

  /**
   * A built-in tool harness itself relies on (read_file for @ mentions, run_command for
   * `!command`): undefined when it is not loaded, or a plugin of another origin has the name.
   *
   * @param handle The tool's handle (builtin_tools.ts).
   */
  builtin<A>(handle: ToolHandle<A>): ToolEntry | undefined {
    const entry = this.get(handle.name);
    return entry?.info.origin === "builtin" ? entry : undefined;
  }

  /** Closes every source. */
  async close(): Promise<void> {
    await Promise.all(this.#sources.map((source) => source.close?.()));
  }
}
