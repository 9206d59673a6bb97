// The footer harness writes under a subagent's report, so the parent never relies on the
// child's own claim of what it did: the files it changed, as a diffstat of the states its
// turns' checkpoints recorded (diff_stat.ts's diffStatOfStates), and the commands it ran, as the session
// log recorded them. Pure: the task tool gathers both and appends this.

import type { PathStat } from "../../checkpoints/diff_stat.ts";

/** What the footer says, gathered by harness. */
export interface TaskFooterFacts {
  changed: readonly PathStat[];
  /** The commands run_command ran for the child, in order. */
  commands: readonly string[];
  /** Other subagents ran at the same time, so the changes may be partly theirs. */
  concurrent?: number;
  /** Why the changes are unknown (checkpoints off, git missing); replaces the diffstat. */
  changesUnknown?: string;
}

const MAX_PATHS = 20;
const MAX_COMMANDS = 10;
const MAX_COMMAND_CHARS = 120;

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function oneLine(command: string): string {
  const flat = command.replace(/\s+/g, " ").trim();
  return flat.length > MAX_COMMAND_CHARS ? `${flat.slice(0, MAX_COMMAND_CHARS - 3)}...` : flat;
}

function changesLine(facts: TaskFooterFacts): string {
  if (facts.changesUnknown !== undefined) return `files changed: unknown (${facts.changesUnknown})`;
  if (facts.changed.length === 0) return "files changed: none";
  const added = facts.changed.reduce((sum, c) => sum + c.added, 0);
  const removed = facts.changed.reduce((sum, c) => sum + c.removed, 0);
  const shown = facts.changed.slice(0, MAX_PATHS).map((c) =>
    c.binary ? `  ${c.path} (binary)` : `  ${c.path} +${c.added} -${c.removed}`
  );
  const more = facts.changed.length - shown.length;
  const together = facts.concurrent
    ? ` (${plural(facts.concurrent, "other subagent", "other subagents")} ran at the same time)`
    : "";
  return [
    `files changed: ${
      plural(facts.changed.length, "file", "files")
    }, +${added} -${removed}${together}`,
    ...shown,
    ...(more > 0 ? [`  and ${more} more`] : []),
  ].join("\n");
}

function commandsLine(commands: readonly string[]): string {
  if (commands.length === 0) return "commands run: none";
  const shown = commands.slice(0, MAX_COMMANDS).map((command) => `  $ ${oneLine(command)}`);
  const more = commands.length - shown.length;
  return [
    `commands run: ${commands.length}`,
    ...shown,
    ...(more > 0 ? [`  and ${more} more`] : []),
  ].join("\n");
}

/**
 * The footer: a marked block naming what harness saw the child change and run.
 *
 * @param facts The diffstat and commands harness recorded.
 * @returns Text to append to the child's report.
 *
 * @example
 * ```ts
 * import { formatTaskFooter } from "./task_footer.ts";
 * const text = formatTaskFooter({
 *   changed: [{ path: "src/a.ts", added: 3, removed: 1, binary: false }],
 *   commands: ["deno test"],
 * });
 * if (!text.includes("src/a.ts +3 -1") || !text.includes("$ deno test")) throw new Error(text);
 * ```
 */
export function formatTaskFooter(facts: TaskFooterFacts): string {
  return [
    "[harness: what this subagent did, as harness recorded it]",
    changesLine(facts),
    commandsLine(facts.commands),
  ].join("\n");
}
