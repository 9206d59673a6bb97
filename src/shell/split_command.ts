// Shell command analysis for permission rules. `run_command` receives one shell string; a rule
// like `git *` must hold for every simple command inside it, so this module splits a command
// at `&&`, `||`, `;`, `|`, `&`, newlines, subshells, `$(...)`, backticks and `bash -c '...'`,
// and strips wrappers (`sudo`, `env X=1`, `timeout 5`, ...). Pure; used by permissions/policy.ts.
//
// The analysis errs in opposite directions for the two kinds of rule:
// - Allow rules may vouch only for what is provably the named program with plain arguments.
//   A sub-command is `plain` only when every word is a literal (quotes are fine; no `$`,
//   backticks, `$((...))`, globs, braces, a leading `~` or process substitution), nothing is
//   assigned (`A=1 git`, `PATH=x; git`, `env A=1 git`), and every wrapper around it is one
//   that runs it unchanged (timeout, nice, nohup, stdbuf, time, command, setsid) written with
//   options this module knows. `sudo`, `xargs`, `env` with options, unknown options and any
//   construct the scanner does not follow (here-docs, functions, `case`) mean "ask".
// - Deny rules see everything that might run: wrapped forms, every later word of a wrapper
//   whose options are unknown, brace expansions, `find -delete` as `rm`, and the values of
//   assignments and `git -c` (which programs may run). A command that could run something
//   no analysis can name (a program from `$X`, a shell reading its script from a pipe,
//   arithmetic on variables, which runs `$(...)` held in array subscripts) is `opaque`:
//   every deny rule on commands applies to it, so `--yes` cannot run it either.
// What programs do with their options and subcommands (`tar --to-command`, `git submodule
// foreach`, `sed 1e`, `git -C . reset`, abbreviations like `--to-com=`) is one table,
// program_options.ts, applied by program_effects.ts. Interpreter code (`python -c`), script
// files and makefile recipes are not looked into: a deny rule on commands cannot see what
// another program decides to run.

import { posix } from "node:path";
import { decodeAnsiC, escapeAll, expandBraces, unescape } from "./shell_words.ts";
import {
  type Budget,
  type CommandAnalysis,
  MAX_DEPTH,
  REDIRECT_WORD,
  type ScannedCommand,
} from "./command_analysis.ts";
import { unwrapCommand } from "./unwrap_command.ts";

/** Analysis steps for one command string; past it the command is opaque (a hostile size). */
const STEP_BUDGET = 10_000;
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

interface ScanState {
  text: string;
  i: number;
  depth: number;
  complete: boolean;
  opaque: boolean;
  out: ScannedCommand[];
  /** Here-documents whose bodies start after the next newline. */
  heredocs: Heredoc[];
  /** Whether `$'...'` is an ANSI-C string (bash) or `$` and a quoted string (dash). */
  ansiC: boolean;
  /** Shared by every state of one reading: whether an unquoted `$'` or `$"` was met. */
  shared: { dollarQuote: boolean };
}

interface Heredoc {
  delimiter: string;
  /** A quoted delimiter (`<<'EOF'`): the body is literal text. */
  quoted: boolean;
  /** `<<-`: leading tabs are stripped from each line. */
  stripTabs: boolean;
}

/** One piece of a word: its text, whether quoting made it literal, whether it expands. */
interface WordPiece {
  text: string;
  quoted: boolean;
  literal: boolean;
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
 * if (!a.commands[0]?.plain || analyzeCommand("A=1 npm test").commands[0]?.plain) throw new Error();
 * ```
 */
export function analyzeCommand(command: string): CommandAnalysis {
  return analyzeAt(command, 0, { left: STEP_BUDGET });
}

function analyzeAt(command: string, depth: number, budget: Budget): CommandAnalysis {
  budget.left--;
  if (depth > MAX_DEPTH || budget.left < 0) return { commands: [], complete: false, opaque: true };
  const analysis: CommandAnalysis = { commands: [], complete: true, opaque: false };
  // run_command runs `sh`: bash reads `$'...'` as one ANSI-C string, dash as `$` and a
  // single-quoted string, so `$'\' ; rm x ; # '` hides `rm x` from one reading. Both readings
  // are analysed, and no allow rule vouches for such a command.
  const shared = { dollarQuote: false };
  for (const ansiC of [true, false]) {
    if (!ansiC && !shared.dollarQuote) break;
    if (!ansiC) analysis.complete = false;
    const state: ScanState = {
      text: command,
      i: 0,
      depth,
      complete: true,
      opaque: false,
      out: [],
      heredocs: [],
      ansiC,
      shared,
    };
    const raw: ScannedCommand[] = [];
    scanList(state, raw, null);
    if (!state.complete) analysis.complete = false;
    if (state.opaque) analysis.opaque = true;
    const analyze = (text: string, at: number) => analyzeAt(text, at, budget);
    // Simple commands come first in order, then those found inside substitutions.
    for (const scanned of [...raw, ...state.out]) {
      const sub = unwrapCommand(scanned, { depth, analyze, budget });
      if (!sub.complete) analysis.complete = false;
      if (sub.opaque) analysis.opaque = true;
      analysis.commands.push(...sub.commands);
    }
  }
  return analysis;
}

/** Scans commands until the end of text or the closing character `until`. */
function scanList(s: ScanState, commands: ScannedCommand[], until: string | null): void {
  let current: ScannedCommand = { words: [], literal: [] };
  // Write redirections, listed after the command they belong to.
  let redirects: ScannedCommand[] = [];
  // The word being read, with quoted characters escaped by a backslash (for brace expansion).
  let escaped = "";
  let literal = true;
  let inWord = false;
  const endWord = () => {
    if (inWord) pushWord(s, current, escaped, literal);
    escaped = "";
    literal = true;
    inWord = false;
  };
  // Where `&>` stood: dash ends the command there (`a &` then `> f b`), bash does not.
  let splitAt: number | undefined;
  const endCommand = () => {
    endWord();
    if (current.words.length > 0) commands.push(current);
    if (splitAt !== undefined && splitAt > 0 && splitAt < current.words.length) {
      s.complete = false; // the shells disagree on what runs
      commands.push({
        words: current.words.slice(splitAt),
        literal: current.literal.slice(splitAt),
      });
    }
    commands.push(...redirects);
    current = { words: [], literal: [] };
    redirects = [];
    splitAt = undefined;
  };
  while (s.i < s.text.length) {
    const c = s.text[s.i]!;
    const next = s.text[s.i + 1];
    if (until !== null && c === until) {
      s.i++;
      endCommand();
      return;
    }
    if (c === "\\" && next === "\n") {
      s.i += 2; // a line continuation joins lines; it is not an empty word
    } else if (c === " " || c === "\t") {
      endWord();
      s.i++;
    } else if (c === "\n" || c === ";" || c === "&" || c === "|") {
      if (c === "&" && next === ">") {
        // `&> file` / `&>> file`: both streams to a file.
        endWord();
        splitAt ??= current.words.length;
        s.i++;
        readRedirection(s, redirects);
        continue;
      }
      endCommand();
      s.i++;
      if (c === "\n" && s.heredocs.length > 0) {
        readHeredocBodies(s);
        continue;
      }
      if (next === c || (c === "|" && next === "&") || (c === ";" && next === ";")) s.i++;
      if (c === ";" && s.text[s.i] === "&") s.i++; // `;&` and `;;&` in case
    } else if (c === "#" && !inWord) {
      while (s.i < s.text.length && s.text[s.i] !== "\n") s.i++;
    } else if (c === "(" && !inWord && next === "(" && current.words.length === 0) {
      // `(( expr ))`: arithmetic, which can run code through array subscripts in variables.
      endCommand();
      const end = s.text.indexOf("))", s.i + 2);
      const stop = end < 0 ? s.text.length : end + 2;
      markArithmetic(s, s.text.slice(s.i + 2, end < 0 ? s.text.length : end));
      s.complete = false;
      if (end < 0) s.opaque = true; // nested subshells `( (...) )` after all
      s.i = stop;
    } else if (c === "(" && !inWord) {
      endCommand();
      s.i++;
      scanList(s, commands, ")");
    } else if (c === "(" && inWord) {
      // `f() { ...; }` defines a function that can shadow any program; `@(a|b)` is extglob.
      s.complete = false;
      literal = false;
      escaped += c;
      s.i++;
    } else if (c === ")" && until === null) {
      // A stray closing parenthesis (`case` patterns): nothing to match, so refuse to vouch.
      s.complete = false;
      endCommand();
      s.i++;
    } else if (c === ">" || c === "<") {
      if (next === "(") {
        // Process substitution <(cmd) / >(cmd).
        s.i += 2;
        const start = s.i;
        scanNested(s, ")");
        escaped += escapeAll(`${c}(${s.text.slice(start, s.i - 1)})`);
        literal = false;
        inWord = true;
        continue;
      }
      if (inWord && /^\d+$/.test(escaped)) {
        escaped = "";
        inWord = false;
      } else endWord();
      readRedirection(s, redirects);
    } else {
      const piece = readWordPiece(s);
      if (!piece.quoted && /[*?[]/.test(piece.text)) literal = false; // a glob
      if (!piece.quoted && !inWord && piece.text.startsWith("~")) literal = false;
      if (!piece.literal) literal = false;
      escaped += piece.quoted ? escapeAll(piece.text) : piece.text;
      inWord = true;
    }
  }
  if (until !== null) s.complete = false;
  endCommand();
}

/** Adds a finished word to a command, brace-expanded as bash would (`{rm,-rf,x}`). */
function pushWord(s: ScanState, command: ScannedCommand, escaped: string, literal: boolean): void {
  const expanded = expandBraces(escaped);
  if (expanded === undefined) {
    s.opaque = true;
    s.complete = false;
  }
  const words = expanded ?? [escaped];
  const braced = words.length !== 1 || words[0] !== escaped;
  for (const word of words) {
    command.words.push(unescape(word));
    command.literal.push(literal && !braced);
  }
}

/** Reads a redirection starting at `>` or `<`; write targets become `[">", target]`. */
function readRedirection(s: ScanState, commands: ScannedCommand[]): void {
  const c = s.text[s.i]!;
  s.i++;
  let writes = c === ">";
  if (c === "<") {
    if (s.text[s.i] === "<") {
      s.i++;
      if (s.text[s.i] !== "<") {
        readHeredocStart(s);
        return;
      }
      s.i++; // here-string: a read
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
  if ((s.text[s.i] === "<" || s.text[s.i] === ">") && s.text[s.i + 1] === "(") {
    // `> >(cmd)`: the target is a process; its command is analysed, nothing is written.
    s.i += 2;
    scanNested(s, ")");
    return;
  }
  let target = "";
  let literal = true;
  while (s.i < s.text.length && !/[\s;&|()<>]/.test(s.text[s.i]!)) {
    const piece = readWordPiece(s);
    if (!piece.literal || (!piece.quoted && /[*?[{~]/.test(piece.text))) literal = false;
    target += piece.text;
  }
  if (target === "") {
    s.complete = false;
    return;
  }
  if (dup && /^(\d+|-)$/.test(target)) return;
  if (!writes || HARMLESS_TARGETS.has(target)) return;
  // `> build/../x` is `> x`: targets are matched as normalised paths.
  const path = literal ? posix.normalize(target) : target;
  commands.push({ words: [REDIRECT_WORD, path], literal: [true, literal] });
}

/**
 * Reads the delimiter after `<<`. The body follows the next newline; an allow rule does not
 * vouch for a command with one (what it feeds is not matched by any pattern).
 */
function readHeredocStart(s: ScanState): void {
  s.complete = false;
  const stripTabs = s.text[s.i] === "-";
  if (stripTabs) s.i++;
  while (s.text[s.i] === " " || s.text[s.i] === "\t") s.i++;
  let delimiter = "";
  let quoted = false;
  const start = s.i;
  while (s.i < s.text.length && !/[\s;&|()<>]/.test(s.text[s.i]!)) {
    const piece = readWordPiece(s);
    if (piece.quoted) quoted = true;
    delimiter += piece.text;
  }
  // Shells read `$` and backticks in a delimiter differently (dash leaves `<<E`x` rm y` as
  // a command `rm y`): refuse to guess.
  if (/[$`]/.test(s.text.slice(start, s.i))) s.opaque = true;
  if (delimiter !== "") s.heredocs.push({ delimiter, quoted, stripTabs });
}

/**
 * Reads the bodies of pending here-documents, which start at `s.i`. An unquoted body expands
 * `$(...)`, backticks and `$((...))` like a double-quoted string; its lines are not commands.
 */
function readHeredocBodies(s: ScanState): void {
  for (const doc of s.heredocs.splice(0)) {
    let body = "";
    let closed = false;
    while (s.i < s.text.length) {
      const newline = s.text.indexOf("\n", s.i);
      const end = newline < 0 ? s.text.length : newline;
      const line = s.text.slice(s.i, end);
      s.i = newline < 0 ? s.text.length : newline + 1;
      if ((doc.stripTabs ? line.replace(/^\t+/, "") : line) === doc.delimiter) {
        closed = true;
        break;
      }
      body += `${line}\n`;
    }
    if (!closed) s.complete = false;
    if (doc.quoted) continue;
    const inner: ScanState = { ...s, text: body, i: 0, out: [], heredocs: [] };
    while (inner.i < body.length) {
      const c = body[inner.i];
      if (c === "\\") inner.i += 2;
      else if (c === "$" || c === "`") readDollarOrBacktick(inner);
      else inner.i++;
    }
    if (!inner.complete) s.complete = false;
    if (inner.opaque) s.opaque = true;
    s.out.push(...inner.out);
  }
}

/** Reads one piece of a word: a quoted string, an escape, a substitution or a plain char. */
function readWordPiece(s: ScanState): WordPiece {
  const c = s.text[s.i]!;
  if (c === "\\") {
    const escaped = s.text[s.i + 1];
    s.i += 2;
    return {
      text: escaped === undefined || escaped === "\n" ? "" : escaped,
      quoted: true,
      literal: true,
    };
  }
  if (c === "'") {
    const end = s.text.indexOf("'", s.i + 1);
    if (end < 0) {
      s.complete = false;
      const rest = s.text.slice(s.i + 1);
      s.i = s.text.length;
      return { text: rest, quoted: true, literal: true };
    }
    const piece = s.text.slice(s.i + 1, end);
    s.i = end + 1;
    return { text: piece, quoted: true, literal: true };
  }
  if (c === '"') return readDoubleQuoted(s);
  if (c === "$" && (s.text[s.i + 1] === "'" || s.text[s.i + 1] === '"')) {
    s.shared.dollarQuote = true;
  }
  if (c === "$" && s.text[s.i + 1] === "'" && s.ansiC) {
    const decoded = decodeAnsiC(s.text, s.i + 2);
    if (!decoded.closed) s.complete = false;
    s.i = decoded.end;
    return { text: decoded.text, quoted: true, literal: true };
  }
  if (c === "$" && s.text[s.i + 1] === '"' && s.ansiC) {
    s.i++; // $"..." is a translated string: the text itself when no catalogue applies
    return readDoubleQuoted(s);
  }
  if (c === "$" || c === "`") {
    const text = readDollarOrBacktick(s);
    return {
      text,
      quoted: true,
      literal: text === "$" && !/[\w@*#?$!{(-]/.test(s.text[s.i] ?? ""),
    };
  }
  s.i++;
  return { text: c, quoted: false, literal: true };
}

function readDoubleQuoted(s: ScanState): WordPiece {
  s.i++;
  let text = "";
  let literal = true;
  while (s.i < s.text.length) {
    const c = s.text[s.i]!;
    if (c === '"') {
      s.i++;
      return { text, quoted: true, literal };
    }
    if (c === "\\" && /["\\$`\n]/.test(s.text[s.i + 1] ?? "")) {
      const escaped = s.text[s.i + 1]!;
      text += escaped === "\n" ? "" : escaped;
      s.i += 2;
    } else if (c === "$" || c === "`") {
      const piece = readDollarOrBacktick(s);
      if (piece !== "$" || /[\w@*#?$!{(-]/.test(s.text[s.i] ?? "")) literal = false;
      text += piece;
    } else {
      text += c;
      s.i++;
    }
  }
  s.complete = false;
  return { text, quoted: true, literal };
}

/**
 * `${...}` forms that only read a variable (with a default or a pattern), nothing more. A
 * quote or backslash inside one (`"${x:-"}"}"`) moves where it ends, differently per shell,
 * so such a `${...}` is not simple either.
 */
const SIMPLE_PARAMETER =
  /^(#?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])|[A-Za-z_][A-Za-z0-9_]*(:?[-=?+]|##?|%%?|\/\/?|\^\^?|,,?|@[QEPAa])[^`$[\\"'{]*)$/;

/**
 * Handles `$(...)`, `$((...))`, `$[...]`, `${...}`, `$VAR` and backticks; returns the raw
 * text (just `$` for `$VAR`, whose name is read as plain characters).
 */
function readDollarOrBacktick(s: ScanState): string {
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
  if ((next === "(" && s.text[s.i + 2] === "(") || next === "[") {
    // Arithmetic $(( ... )) / $[ ... ]: a variable's value is evaluated again, and an array
    // subscript in it runs `$(...)`; so a name in the expression makes the command opaque.
    const close = next === "[" ? "]" : "))";
    const from = s.i + (next === "[" ? 2 : 3);
    const end = s.text.indexOf(close, from);
    const stop = end < 0 ? s.text.length : end + close.length;
    markArithmetic(s, s.text.slice(from, end < 0 ? s.text.length : end));
    if (end < 0) {
      // No `))`: bash reads `$((` as `$(` and a subshell instead.
      s.complete = false;
      s.opaque = true;
    }
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
    const body = s.text.slice(s.i + 2, end < 0 ? s.text.length : end);
    // Subscripts, substrings (`${x:i}`) and indirection (`${!x}`) evaluate arithmetic or
    // unknown names; a substitution inside a default is not followed; an unclosed `${` is
    // read differently by each shell.
    if (end < 0 || !SIMPLE_PARAMETER.test(body)) {
      s.complete = false;
      s.opaque = true;
    }
    s.i = stop;
    return s.text.slice(start, s.i);
  }
  s.i++;
  return "$";
}

/**
 * Arithmetic text with a name in it may run code (`x='a[$(cmd)]'; $((x))`); anything but
 * numbers and operators (quotes, globs) may also make the shell read it differently.
 */
function markArithmetic(s: ScanState, expression: string): void {
  if (!/^[\d\s+\-*/%<>=!&|^~?:,()]*$/.test(expression)) {
    s.opaque = true;
    s.complete = false;
  }
}

/** Scans a nested command list up to `until`, collecting its commands into `s.out`. */
function scanNested(s: ScanState, until: string): void {
  if (s.depth + 1 > MAX_DEPTH) {
    s.complete = false;
    s.opaque = true;
  }
  const inner: ScanState = { ...s, depth: s.depth + 1, out: [], complete: true, opaque: false };
  // Here-documents opened inside `$(...)` belong to the same text, so they share the list.
  const found: ScannedCommand[] = [];
  scanList(inner, found, until);
  s.i = inner.i;
  if (!inner.complete) s.complete = false;
  if (inner.opaque) s.opaque = true;
  s.out.push(...found, ...inner.out);
}

function nestedAnalysis(s: ScanState, inner: string): void {
  const innerState: ScanState = {
    text: inner,
    i: 0,
    depth: s.depth + 1,
    complete: true,
    opaque: false,
    out: [],
    heredocs: [],
    ansiC: s.ansiC,
    shared: s.shared,
  };
  const found: ScannedCommand[] = [];
  scanList(innerState, found, null);
  if (!innerState.complete || s.depth + 1 > MAX_DEPTH) s.complete = false;
  if (innerState.opaque || s.depth + 1 > MAX_DEPTH) s.opaque = true;
  s.out.push(...found, ...innerState.out);
}
