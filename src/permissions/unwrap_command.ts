// Wrapper stripping for shell command analysis: `sudo rm x` runs `rm x`, `bash -c 'a; b'` runs
// `a` and `b`, `find -exec CMD ;` runs CMD. Given one simple command's words, returns what it
// really runs, with the wrapped forms kept for deny rules. Pure; used by split_command.ts.

import { type CommandAnalysis, MAX_DEPTH } from "./split_command.ts";

const CONTROL_WORDS = new Set([
  "!",
  "{",
  "}",
  "then",
  "else",
  "do",
  "if",
  "elif",
  "while",
  "until",
]);
const CLOSING_WORDS = new Set(["fi", "done", "esac", "}"]);
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "ash", "fish"]);

/** Option letters that take a value, per wrapper. */
const WRAPPER_VALUE_OPTIONS: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group"]),
  doas: new Set(["-u", "-C"]),
  env: new Set(["-u", "--unset", "-C", "--chdir"]),
  timeout: new Set(["-s", "--signal", "-k", "--kill-after"]),
  xargs: new Set(["-I", "-i", "-n", "-P", "-d", "-E", "-e", "-L", "-l", "-s", "-a", "--arg-file"]),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  exec: new Set(["-a"]),
  time: new Set(["-f", "-o"]),
  command: new Set<string>(),
  builtin: new Set<string>(),
  nohup: new Set<string>(),
};

function basename(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** Re-analyses a script found inside a command (`bash -c`, `eval`) at a nesting depth. */
export type AnalyzeAt = (command: string, depth: number) => CommandAnalysis;

/**
 * Strips wrappers and leading `VAR=x` assignments from one simple command. `bash -c` and
 * `eval` scripts are re-analysed with `options.analyze`; `find -exec` commands are added.
 *
 * @param words The simple command's words.
 * @param options `depth`: current nesting; `analyze`: the analyser for nested scripts.
 * @returns The analyses of what the command runs (empty for a bare keyword like `done`).
 *
 * @example
 * ```ts
 * import { unwrapCommand } from "./unwrap_command.ts";
 * import { analyzeCommand } from "./split_command.ts";
 * const [r] = unwrapCommand(["sudo", "-u", "bob", "rm", "x"], { depth: 0, analyze: analyzeCommand });
 * if (r?.commands[0]?.words.join(" ") !== "rm x") throw new Error();
 * ```
 */
export function unwrapCommand(
  words: string[],
  options: { depth: number; analyze: AnalyzeAt },
): CommandAnalysis[] {
  const { depth, analyze } = options;
  const views: string[][] = [];
  let current = words;
  let complete = true;
  for (let step = 0; step < MAX_DEPTH; step++) {
    current = stripLeading(current);
    if (current.length === 0) break;
    views.push(current);
    const name = basename(current[0]!);
    if (SHELLS.has(name)) {
      const script = shellScript(current);
      if (script === undefined) break;
      const inner = analyze(script, depth + 1);
      for (const sub of inner.commands) sub.views = [...views, ...sub.views];
      return [inner];
    }
    if (name === "eval") {
      const inner = analyze(current.slice(1).join(" "), depth + 1);
      for (const sub of inner.commands) sub.views = [...views, ...sub.views];
      return [inner];
    }
    const valueOptions = WRAPPER_VALUE_OPTIONS[name];
    if (!valueOptions) break;
    if (name === "env" && current.some((w) => w === "-S" || w.startsWith("--split-string"))) {
      complete = false;
    }
    let i = 1;
    while (i < current.length) {
      const w = current[i]!;
      if (w === "--") {
        i++;
        break;
      }
      if (!w.startsWith("-") || w === "-") break;
      i += valueOptions.has(w) ? 2 : 1;
    }
    // timeout's first operand is the duration.
    if (name === "timeout" && i < current.length) i++;
    const rest = current.slice(i);
    // `sudo -i`, `nohup` alone, `xargs` with no command (runs echo): keep the wrapper itself.
    if (rest.length === 0) break;
    current = rest;
  }
  if (views.length === 0) return [];
  const last = views[views.length - 1]!;
  // A program name built from an expansion (`$cmd`, `r${IFS}m`) cannot be known here.
  if (/[$`]/.test(last[0]!)) complete = false;
  const results: CommandAnalysis[] = [{ commands: [{ words: last, views }], complete }];
  if (basename(last[0]!) === "find") results.push(...findExecCommands(last, depth, analyze));
  return results;
}

/** The commands that `find ... -exec CMD {} ;` (also -execdir, -ok, -okdir) runs. */
function findExecCommands(words: string[], depth: number, analyze: AnalyzeAt): CommandAnalysis[] {
  const out: CommandAnalysis[] = [];
  for (let i = 1; i < words.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(words[i]!)) continue;
    let end = i + 1;
    while (end < words.length && words[end] !== ";" && words[end] !== "+") end++;
    out.push(...unwrapCommand(words.slice(i + 1, end), { depth: depth + 1, analyze }));
    i = end;
  }
  return out;
}

/** Drops leading `VAR=value` assignments and shell keywords such as `then`, `do`, `!`. */
function stripLeading(words: string[]): string[] {
  let i = 0;
  while (
    i < words.length &&
    (/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(words[i]!) || CONTROL_WORDS.has(words[i]!))
  ) i++;
  const rest = words.slice(i);
  return rest.length === 1 && CLOSING_WORDS.has(rest[0]!) ? [] : rest;
}

/** The script of `bash -c 'script'` (also `-lc`, `-ec`), or undefined without `-c`. */
function shellScript(words: string[]): string | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (!w.startsWith("-")) return undefined;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(w)) return words[i + 1] ?? "";
  }
  return undefined;
}
