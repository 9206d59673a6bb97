// The shapes a shell command's analysis produces, shared by the scanner (split_command.ts), the
// unwrapping of wrappers (unwrap_command.ts) and the policy that matches rules against them.

/** One simple command found inside a shell string. */
export interface SubCommand {
  /** The command's words with wrappers and leading `VAR=x` assignments stripped. */
  words: string[];
  /**
   * The same command with wrappers still on, outermost first (`["sudo", "rm", "x"]`), then
   * each step of unwrapping, then forms it might also run (deny rules look at all of them).
   */
  views: string[][];
  /** Whether an allow rule may vouch for it: the named program with plain arguments. */
  plain: boolean;
}

/** The result of analysing a shell string. */
export interface CommandAnalysis {
  commands: SubCommand[];
  /**
   * False when part of the string could not be analysed (an unterminated quote, a here-doc,
   * `${...}` holding a substitution, nesting deeper than 8). Allow rules never match an
   * incomplete analysis, so such commands are asked about.
   */
  complete: boolean;
  /**
   * True when the command may run a program that cannot be named before it runs (`$X x`,
   * `curl x | sh`, `$((x))`). Deny rules on commands treat such a command as matching.
   */
  opaque: boolean;
}

/** One simple command as scanned: its words and, per word, whether it is a plain literal. */
export interface ScannedCommand {
  words: string[];
  literal: boolean[];
}

/** A redirection that writes is reported as its own sub-command `[">", target]`. */
export const REDIRECT_WORD = ">";

/** Nesting limit for substitutions and `bash -c`; deeper commands are not analysed. */
export const MAX_DEPTH = 8;
/** Steps left for one analysis, shared by every nested part of it. */
export interface Budget {
  left: number;
}

/** Re-analyses a script found inside a command (`bash -c`, `eval`) at a nesting depth. */
export type AnalyzeAt = (command: string, depth: number) => CommandAnalysis;

/** What unwrapCommand needs: the nesting depth, the analyser and the shared step budget. */
export interface UnwrapOptions {
  depth: number;
  analyze: AnalyzeAt;
  budget: Budget;
}
