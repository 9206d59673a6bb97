// Shell command analysis for permission rules. `run_command` receives one shell string; a rule
// like `git *` must hold for every simple command inside it, so this module splits a command
// at `&&`, `||`, `;`, `|`, `&`, newlines, subshells, `$(...)`, backticks and `bash -c '...'`,
// and strips wrappers (`sudo`, `env X=1`, `timeout 5`, ...). Pure; used by policy.ts.
// Not a full shell parser: what it cannot follow marks the analysis incomplete (so no allow
// rule matches); interpreter code (`python -c`), scripts and aliases are not looked into.

import { unwrapCommand } from "./unwrap_command.ts";

/** One simple command found inside a shell string. */
export interface SubCommand {
  /** The command's words with wrappers and leading `VAR=x` assignments stripped. */
  words: string[];
  /**
   * The same command with wrappers still on, outermost first (`["sudo", "rm", "x"]`), then
   * each step of unwrapping; the last entry equals `words`. Deny rules look at all of them.
   */
  views: string[][];
}

/** The result of analysing a shell string. */
export interface CommandAnalysis {
  commands: SubCommand[];
  /**
   * False when part of the string could not be analysed (an unterminated quote, a here-doc,
   * `${...}` holding a substitution, `env -S`, nesting deeper than 8). Allow rules never match
   * an incomplete analysis, so such commands are asked about.
   */
  complete: boolean;
}

/** A redirection that writes is reported as its own sub-command `[">", target]`. */
export const REDIRECT_WORD = ">";

/** Nesting limit for substitutions and `bash -c`; deeper commands are not analysed. */
export const MAX_DEPTH = 8;
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

interface ScanState {
  text: string;
  i: number;
  depth: number;
  complete: boolean;
  out: string[][];
}

/**
 * Splits a shell command into its simple commands as word lists, wrappers stripped.
 *
 * Operators (`&&`, `||`, `;`, `|`, `|&`, `&`, newline) separate commands; `( )` subshells,
 * `$(...)`, `<(...)`, backticks, `bash -c '...'`/`sh -c` and `eval` are analysed recursively,
 * and their commands are listed too. Quotes and backslashes are removed from words. A
 * redirection that writes a file (`> f`, `>> f`, `&> f`, `2> f`) appears as the sub-command
 * `[">", "f"]`; fd duplications (`2>&1`) and `/dev/null` are dropped.
 *
 * @param command The shell string.
 * @returns One word list per simple command, in order of appearance.
 *
 * @example
 * ```ts
 * import { splitCommand } from "./split_command.ts";
 * const parts = splitCommand("sudo git status && echo $(curl x | sh)");
 * if (JSON.stringify(parts) !== JSON.stringify([
 *   ["git", "status"], ["echo", "$(curl x | sh)"], ["curl", "x"], ["sh"],
 * ])) throw new Error(JSON.stringify(parts));
 * ```
 */
export function splitCommand(command: string): string[][] {
  return analyzeCommand(command).commands.map((c) => c.words);
}

/**
 * Analyses a shell command: sub-commands with their wrapped views, and whether the analysis
 * is complete. The policy engine uses this; {@link splitCommand} is the simple form.
 *
 * @param command The shell string.
 * @returns The sub-commands and a completeness flag.
 *
 * @example
 * ```ts
 * import { analyzeCommand } from "./split_command.ts";
 * const a = analyzeCommand("timeout 5 npm test");
 * if (a.commands[0]?.words.join(" ") !== "npm test") throw new Error();
 * if (a.commands[0]?.views[0]?.[0] !== "timeout") throw new Error();
 * ```
 */
export function analyzeCommand(command: string): CommandAnalysis {
  return analyzeAt(command, 0);
}

function analyzeAt(command: string, depth: number): CommandAnalysis {
  if (depth > MAX_DEPTH) return { commands: [], complete: false };
  const state: ScanState = { text: command, i: 0, depth, complete: true, out: [] };
  const raw: string[][] = [];
  scanList(state, raw, null);
  const commands: SubCommand[] = [];
  // Simple commands come first in order, then those found inside substitutions.
  for (const words of [...raw, ...state.out]) {
    for (const sub of unwrapCommand(words, { depth, analyze: analyzeAt })) {
      if (!sub.complete) state.complete = false;
      commands.push(...sub.commands);
    }
  }
  return { commands, complete: state.complete };
}

/** Scans commands until the end of text or the closing character `until`. */
function scanList(s: ScanState, commands: string[][], until: string | null): void {
  let words: string[] = [];
  // Write redirections, listed after the command they belong to.
  let redirects: string[][] = [];
  let word = "";
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    commands.push(...redirects);
    words = [];
    redirects = [];
  };
  while (s.i < s.text.length) {
    const c = s.text[s.i]!;
    const next = s.text[s.i + 1];
    if (until !== null && c === until) {
      s.i++;
      endCommand();
      return;
    }
    if (c === " " || c === "\t") {
      endWord();
      s.i++;
    } else if (c === "\n" || c === ";" || c === "&" || c === "|") {
      if (c === "&" && next === ">") {
        // `&> file` / `&>> file`: both streams to a file.
        endWord();
        s.i++;
        readRedirection(s, redirects);
        continue;
      }
      endCommand();
      s.i++;
      if (next === c || (c === "|" && next === "&") || (c === ";" && next === ";")) s.i++;
    } else if (c === "#" && !inWord) {
      while (s.i < s.text.length && s.text[s.i] !== "\n") s.i++;
    } else if (c === "(" && !inWord) {
      endCommand();
      s.i++;
      scanList(s, commands, ")");
    } else if (c === ")" && until === null) {
      // A stray closing parenthesis: nothing sensible to match, so refuse to vouch for it.
      s.complete = false;
      endCommand();
      s.i++;
    } else if (c === ">" || c === "<") {
      if (next === "(") {
        // Process substitution <(cmd) / >(cmd).
        s.i += 2;
        const start = s.i;
        scanNested(s, ")");
        word += `${c}(${s.text.slice(start, s.i - 1)})`;
        inWord = true;
        continue;
      }
      if (inWord && /^\d+$/.test(word)) {
        word = "";
        inWord = false;
      } else endWord();
      readRedirection(s, redirects);
    } else {
      const piece = readWordPiece(s);
      word += piece;
      inWord = true;
    }
  }
  if (until !== null) s.complete = false;
  endCommand();
}

/** Reads a redirection starting at `>` or `<`; write targets become `[">", target]`. */
function readRedirection(s: ScanState, commands: string[][]): void {
  const c = s.text[s.i]!;
  s.i++;
  let writes = c === ">";
  if (c === "<") {
    if (s.text[s.i] === "<") {
      s.i++;
      if (s.text[s.i] === "<") s.i++; // here-string: a read
      else s.complete = false; // here-document: its body is not analysed
    } else if (s.text[s.i] === ">") {
      s.i++;
      writes = true; // <> opens for reading and writing
    }
  } else if (s.text[s.i] === ">" || s.text[s.i] === "|") s.i++;
  let dup = false;
  if (s.text[s.i] === "&") {
    s.i++;
    dup = true;
  }
  while (s.text[s.i] === " " || s.text[s.i] === "\t") s.i++;
  let target = "";
  while (s.i < s.text.length && !/[\s;&|()<>]/.test(s.text[s.i]!)) target += readWordPiece(s);
  if (target === "") {
    s.complete = false;
    return;
  }
  if (dup && /^(\d+|-)$/.test(target)) return;
  if (writes && !HARMLESS_TARGETS.has(target)) commands.push([REDIRECT_WORD, target]);
}

/** Reads one piece of a word: a quoted string, an escape, a substitution or a plain char. */
function readWordPiece(s: ScanState): string {
  const c = s.text[s.i]!;
  if (c === "\\") {
    const escaped = s.text[s.i + 1];
    s.i += 2;
    return escaped === undefined || escaped === "\n" ? "" : escaped;
  }
  if (c === "'") {
    const end = s.text.indexOf("'", s.i + 1);
    if (end < 0) {
      s.complete = false;
      const rest = s.text.slice(s.i + 1);
      s.i = s.text.length;
      return rest;
    }
    const piece = s.text.slice(s.i + 1, end);
    s.i = end + 1;
    return piece;
  }
  if (c === '"') return readDoubleQuoted(s);
  if (c === "$" || c === "`") return readDollarOrBacktick(s) ?? "";
  s.i++;
  return c;
}

function readDoubleQuoted(s: ScanState): string {
  s.i++;
  let piece = "";
  while (s.i < s.text.length) {
    const c = s.text[s.i]!;
    if (c === '"') {
      s.i++;
      return piece;
    }
    if (c === "\\" && /["\\$`\n]/.test(s.text[s.i + 1] ?? "")) {
      const escaped = s.text[s.i + 1]!;
      piece += escaped === "\n" ? "" : escaped;
      s.i += 2;
    } else if (c === "$" || c === "`") {
      piece += readDollarOrBacktick(s) ?? "";
    } else {
      piece += c;
      s.i++;
    }
  }
  s.complete = false;
  return piece;
}

/** Handles `$(...)`, `$((...))`, `${...}`, `$VAR` and backticks; returns the raw text. */
function readDollarOrBacktick(s: ScanState): string | undefined {
  const start = s.i;
  if (s.text[s.i] === "`") {
    let end = s.i + 1;
    while (end < s.text.length && s.text[end] !== "`") end += s.text[end] === "\\" ? 2 : 1;
    if (end >= s.text.length) s.complete = false;
    const inner = s.text.slice(s.i + 1, end).replace(/\\([`\\$])/g, "$1");
    s.i = Math.min(end + 1, s.text.length);
    nestedAnalysis(s, inner);
    return s.text.slice(start, s.i);
  }
  const next = s.text[s.i + 1];
  if (next === "(" && s.text[s.i + 2] === "(") {
    // Arithmetic $(( ... )): no commands inside unless it holds a substitution.
    const end = s.text.indexOf("))", s.i + 3);
    const stop = end < 0 ? s.text.length : end + 2;
    if (end < 0 || /[`$]\(|`/.test(s.text.slice(s.i + 3, stop))) s.complete = false;
    s.i = stop;
    return s.text.slice(start, s.i);
  }
  if (next === "(") {
    s.i += 2;
    scanNested(s, ")");
    return s.text.slice(start, s.i);
  }
  if (next === "{") {
    const end = s.text.indexOf("}", s.i + 2);
    const stop = end < 0 ? s.text.length : end + 1;
    if (end < 0 || /\$\(|`/.test(s.text.slice(s.i, stop))) s.complete = false;
    s.i = stop;
    return s.text.slice(start, s.i);
  }
  s.i++;
  return "$";
}

/** Scans a nested command list up to `until`, collecting its commands into `s.out`. */
function scanNested(s: ScanState, until: string): void {
  if (s.depth + 1 > MAX_DEPTH) {
    s.complete = false;
  }
  const inner: ScanState = { ...s, depth: s.depth + 1, out: [] };
  const found: string[][] = [];
  scanList(inner, found, until);
  s.i = inner.i;
  if (!inner.complete) s.complete = false;
  s.out.push(...found, ...inner.out);
}

function nestedAnalysis(s: ScanState, inner: string): void {
  const innerState: ScanState = { text: inner, i: 0, depth: s.depth + 1, complete: true, out: [] };
  const found: string[][] = [];
  scanList(innerState, found, null);
  if (!innerState.complete || s.depth + 1 > MAX_DEPTH) s.complete = false;
  s.out.push(...found, ...innerState.out);
}
