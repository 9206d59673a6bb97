// The state one unwrapping of a simple command shares between its steps (unwrap_command.ts,
// unwrap_builtins.ts, program_effects.ts), and how a step adds to it: commands found inside,
// forms only deny rules see, and the marks that keep allow rules from vouching. Pure.

import type { CommandAnalysis, SubCommand, UnwrapOptions } from "./command_analysis.ts";

/** A shell variable assignment (`A=1`, `a[i]=1`, `A+=1`); group 2 is the subscript. */
export const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^=]*\])?\+?=/;

/** What one unwrapping has found so far; its steps add to it. */
export interface Unwrapping {
  /** The analysis returned (and memoised) for this start; steps clear its flags. */
  result: CommandAnalysis;
  /** The command as written from each program word on, outermost wrapper first. */
  views: string[][];
  /** Forms the command might also run, seen by deny rules only. */
  maybe: string[][];
  /** Commands found inside (`bash -c`, `eval`, `env -S`, `find -exec`, `trap`). */
  nested: SubCommand[];
  /** Whether an allow rule may still vouch for the command. */
  plain: boolean;
  options: UnwrapOptions;
}

/**
 * Takes in a nested analysis: its flags, and its commands as commands (`asCommands`) or as
 * forms the command might also run.
 */
export function absorb(state: Unwrapping, analysis: CommandAnalysis, asCommands: boolean): void {
  if (!analysis.complete) state.result.complete = false;
  if (analysis.opaque) state.result.opaque = true;
  if (asCommands) state.nested.push(...analysis.commands);
  else for (const c of analysis.commands) state.maybe.push(...c.views);
}

/**
 * A value that some program might run (`GIT_PAGER=...`, `git -c k=v`): what it names is
 * seen by deny rules, but a `$` in it (`PATH=./bin:$PATH`) is only text until then.
 */
export function mayRun(state: Unwrapping, value: string): void {
  const { depth, analyze } = state.options;
  for (const c of analyze(value, depth + 1).commands) state.maybe.push(...c.views);
}

/** The command may run a program that cannot be named here. */
export function markOpaque(state: Unwrapping): void {
  state.result.opaque = true;
  state.result.complete = false;
  state.plain = false;
}
