// Steps of unwrapping one simple command (unwrap_command.ts) at a shell or builtin program
// word: `bash -c` scripts, `eval`, `source`, `at`, and what builtin arguments may run or change
// (`export X=...`, `alias`, `trap`, `hash -p`, `enable -f`, arithmetic, and through
// program_effects.ts what options and subcommands of programs run). Pure.

import { shellCall, SHELLS } from "./command_wrappers.ts";
import { programEffects } from "./program_effects.ts";
import type { ScannedCommand } from "./command_analysis.ts";
import { absorb, ASSIGNMENT, markOpaque, mayRun, type Unwrapping } from "./unwrapping.ts";

/** Builtins that take variable names, where `a[$(cmd)]` runs cmd through the subscript. */
const NAME_TAKERS = new Set([
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "printf",
  "read",
  "unset",
  "mapfile",
  "readarray",
  "let",
  "[[",
  "getopts",
  "wait",
]);

/**
 * The step at program word `at` named `name` when it is a shell or a builtin: "finished" when
 * its script's commands are the analysis (`bash -c`, `eval`), "stop" when nothing after it
 * runs, undefined when the unwrapping goes on (a wrapper may follow).
 */
export function unwrapBuiltin(
  state: Unwrapping,
  scanned: ScannedCommand,
  at: number,
  name: string,
): "finished" | "stop" | undefined {
  if (SHELLS.has(name)) return unwrapShell(state, scanned, at);
  const script = unwrapScriptBuiltin(state, scanned, at, name);
  if (script !== undefined) return script;
  noteBuiltinEffects(state, scanned, at, name);
  return undefined;
}

/** `bash -c SCRIPT` and other shells: the script's commands, or opaque when read from stdin. */
function unwrapShell(state: Unwrapping, scanned: ScannedCommand, i: number): "finished" | "stop" {
  const { words, literal } = scanned;
  const { depth, analyze } = state.options;
  const call = shellCall(words, i);
  if (call.kind === "script") {
    const inner = analyze(call.script, depth + 1);
    for (const sub of inner.commands) {
      sub.views = [...state.views, ...state.maybe, ...sub.views];
      // `sudo bash -c 'x'` is no plainer than `sudo x`.
      if (!call.plain || !state.plain) sub.plain = false;
    }
    absorb(state, inner, true);
    return "finished";
  }
  // Commands read from stdin, a here-doc or `<(...)`: nothing to analyse.
  if (call.kind === "stdin" || !literal[call.index] || isStdinPath(words[call.index]!)) {
    markOpaque(state);
  }
  return "stop";
}

/** `at`, `batch`, `source` and `eval`, which run scripts; undefined for other programs. */
function unwrapScriptBuiltin(
  state: Unwrapping,
  scanned: ScannedCommand,
  i: number,
  name: string,
): "finished" | "stop" | undefined {
  const { words, literal } = scanned;
  const { depth, analyze } = state.options;
  if (name === "at" || name === "batch") {
    // Both run a script read from stdin (or `-f FILE`) later.
    markOpaque(state);
    return "stop";
  }
  if (name === "source" || name === ".") {
    if (i + 1 < words.length && (!literal[i + 1] || isStdinPath(words[i + 1]!))) {
      markOpaque(state);
    }
    return "stop";
  }
  if (name === "eval") {
    const inner = analyze(words.slice(i + 1).join(" "), depth + 1);
    for (const sub of inner.commands) {
      sub.views = [...state.views, ...state.maybe, ...sub.views];
      if (!state.plain) sub.plain = false;
    }
    absorb(state, inner, true);
    return "finished";
  }
  return undefined;
}

/**
 * What a program's arguments may run or change beyond the program itself: arithmetic, values
 * git, tar, rsync or ssh run, assigned values, aliases, traps, `hash -p` and `enable -f`.
 */
function noteBuiltinEffects(
  state: Unwrapping,
  scanned: ScannedCommand,
  i: number,
  name: string,
): void {
  const { words } = scanned;
  const { depth, analyze } = state.options;
  if (runsArithmetic(name, words.slice(i + 1))) markOpaque(state);
  // Options and subcommands that run a command, run code or write (program_options.ts):
  // deny rules see what runs, and no allow rule vouches for the call.
  programEffects(state, scanned, i, name);
  if (/^(export|declare|typeset|local|readonly)$/.test(name)) {
    for (const w of words.slice(i + 1)) {
      const assignment = ASSIGNMENT.exec(w);
      if (assignment) mayRun(state, w.slice(assignment[0].length));
    }
  }
  if (name === "alias" || name === "hash" || name === "enable") {
    // Aliases (sh expands them on later lines), `hash -p` and loaded builtins change what a
    // later program name means: no allow rule vouches for the rest.
    state.result.complete = false;
  }
  if (name === "alias") {
    for (const w of words.slice(i + 1)) {
      const eq = w.indexOf("=");
      if (eq > 0) absorb(state, analyze(w.slice(eq + 1), depth + 1), false); // runs as written
    }
  }
  if (name === "trap" && i + 1 < words.length && !words[i + 1]!.startsWith("-")) {
    absorb(state, analyze(words[i + 1]!, depth + 1), true); // runs at a signal or exit
  }
  if (name === "hash") {
    // `hash -p /bin/rm ls`: later `ls` runs /bin/rm.
    const p = words.indexOf("-p", i + 1);
    if (p > 0 && p + 1 < words.length) state.maybe.push(words.slice(p + 1));
  }
  if (name === "enable" && words.slice(i + 1).some((w) => /^-\w*f/.test(w))) markOpaque(state);
}

function isStdinPath(word: string): boolean {
  return word === "-" || /^\/(dev\/stdin|dev\/fd\/|proc\/self\/fd\/)/.test(word);
}

/** Arithmetic through builtins: `let x`, `[[ $x -eq 1 ]]`, `declare -i`, `read 'a[...]'`. */
function runsArithmetic(name: string, args: string[]): boolean {
  if (!NAME_TAKERS.has(name)) return false;
  if (name === "let") return true;
  if (args.some((a) => a.includes("["))) return true;
  if (name === "[[") return args.some((a) => /^-(eq|ne|lt|le|gt|ge)$/.test(a));
  return /^(declare|typeset|local|export|readonly)$/.test(name) &&
    args.some((a) => /^[-+][a-zA-Z]*i/.test(a));
}
