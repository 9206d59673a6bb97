// Adds the skill tools (src/skills/skill_tools.ts), which run in the host, beside the other
// tools of a workspace, so the loop sees one ToolRunner; a plugin of the same name wins.

import type { Result } from "../errors.ts";
import type { ToolInfo, ToolRun, ToolRunner } from "../tools/tool_runner.ts";
import type { PreviewResult } from "../tools/file_change.ts";
import type { SkillTools } from "../skills/skill_tools.ts";

/** A ToolRunner with the skill tools added. */
export class WithSkillTools implements ToolRunner {
  constructor(readonly inner: ToolRunner, readonly skills: SkillTools) {}

  ready(): Promise<void> {
    return this.inner.ready?.() ?? Promise.resolve();
  }

  #isSkill(name: string): boolean {
    return this.skills.has(name) && !this.inner.list().some((tool) => tool.name === name);
  }

  list(): readonly ToolInfo[] {
    const inner = this.inner.list();
    const names = new Set(inner.map((tool) => tool.name));
    return [...inner, ...this.skills.list().filter((tool) => !names.has(tool.name))];
  }

  unavailableReason(name: string): string | undefined {
    return this.inner.unavailableReason?.(name);
  }

  preview(
    name: string,
    args: unknown,
    state?: Record<string, unknown>,
  ): Promise<PreviewResult | undefined> {
    if (this.#isSkill(name)) return Promise.resolve(undefined);
    return this.inner.preview?.(name, args, state) ?? Promise.resolve(undefined);
  }

  validate(name: string, args: unknown): Promise<Result<unknown, string[]>> {
    if (this.#isSkill(name)) return Promise.resolve(this.skills.validate(name, args));
    return this.inner.validate(name, args);
  }

  run(
    name: string,
    args: unknown,
    options: {
      signal?: AbortSignal;
      state: Record<string, unknown>;
      onOutput?: (text: string) => void;
    },
  ): Promise<ToolRun> {
    if (!this.#isSkill(name)) return this.inner.run(name, args, options);
    const run = this.skills.run(name, args as Record<string, unknown>);
    return Promise.resolve({ ...run, state: options.state });
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
