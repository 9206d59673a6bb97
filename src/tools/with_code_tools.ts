// Adds the code-graph tools (src/code_index/code_tools.ts), which run in the host, to the
// sandboxed tool host, so the loop sees one ToolRunner. Every call of a sandboxed file tool
// is reported to the code tools afterwards, so the graph follows the files the model edits.

import type { Result } from "../errors.ts";
import type { CodeTools } from "../code_index/code_tools.ts";
import type { ToolInfo, ToolRun, ToolRunner } from "./tool_runner.ts";

/** A ToolRunner (the host) with the code tools added; a plugin of the same name wins. */
export class WithCodeTools implements ToolRunner {
  constructor(readonly inner: ToolRunner, readonly code: CodeTools) {}

  ready(): Promise<void> {
    return this.inner.ready?.() ?? Promise.resolve();
  }

  #isCode(name: string): boolean {
    return this.code.has(name) && !this.inner.list().some((t) => t.name === name);
  }

  list(): readonly ToolInfo[] {
    const inner = this.inner.list();
    const names = new Set(inner.map((t) => t.name));
    return [...inner, ...this.code.list().filter((t) => !names.has(t.name))];
  }

  validate(name: string, args: unknown): Promise<Result<unknown, string[]>> {
    if (this.#isCode(name)) return Promise.resolve(this.code.validate(name, args));
    return this.inner.validate(name, args);
  }

  async run(
    name: string,
    args: unknown,
    options: { signal?: AbortSignal; state: Record<string, unknown> },
  ): Promise<ToolRun> {
    if (this.#isCode(name)) {
      const run = await this.code.run(name, args, options);
      return { ...run, state: options.state };
    }
    const run = await this.inner.run(name, args, options);
    if (run.result.success) this.code.noteToolRun(name, args);
    return run;
  }

  async close(): Promise<void> {
    this.code.close();
    await this.inner.close();
  }
}
