// Wrapper stripping for shell command analysis: `sudo rm x` runs `rm x`, `bash -c 'a; b'` runs
// `a` and `b`, `find -exec CMD ;` runs CMD. Given one simple command's words, returns what it
// really runs, with the wrapped forms kept for deny rules. Pure; used by split_command.ts.
//
// Wrappers with a known option table are parsed exactly; at an option the table does not
// know, or for wrappers without a table (ssh, su, strace, ...), every later word that is not
// an option is taken as a command that may run, for deny rules only, and the command is not
// plain. See the header of split_command.ts for what allow and deny rules rely on.

import {
  commandOptionValues,
  gitConfigValues,
  parseWrapperOptions,
  shellCall,
  SHELLS,
  WRAPPERS,
} from "./command_wrappers.ts";
import type { Budget, CommandAnalysis, ScannedCommand, SubCommand } from "./command_analysis.ts";

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
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^=]*\])?\+?=/;

function basename(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** Re-analyses a script found inside a command (`bash -c`, `eval`) at a nesting depth. */
export type AnalyzeAt = (command: string, depth: number) => CommandAnalysis;

/** What unwrapCommand needs: the nesting depth, the analyser and the shared step budget. */
export interface UnwrapOptions {
  depth: number;
  analyze: AnalyzeAt;
  budget: Budget;
}

/**
 * Strips wrappers and leading `VAR=x` assignments from one simple command. `bash -c` and
 * `eval` scripts are re-analysed with `options.analyze`; `find -exec` commands are added.
 *
 * @param scanned The simple command's words and which of them are plain literals.
 * @param options Depth, analyser for nested scripts, step budget.
 * @returns What the command runs (no commands for a bare keyword like `done`).
 *
 * @example
 * ```ts
 * import { unwrapCommand } from "./unwrap_command.ts";
 * import { analyzeCommand } from "./split_command.ts";
 * const r = unwrapCommand(
 *   { words: ["sudo", "-u", "bob", "rm", "x"], literal: [true, true, true, true, true] },
 *   { depth: 0, analyze: analyzeCommand, budget: { left: 100 } },
 * );
 * if (r.commands[0]?.words.join(" ") !== "rm x" || r.commands[0]?.plain) throw new Error();
 * ```
 */
export function unwrapCommand(scanned: ScannedCommand, options: UnwrapOptions): CommandAnalysis {
  return unwrapAt(scanned, 0, options, new Map());
}

function unwrapAt(
  scanned: ScannedCommand,
  start: number,
  options: UnwrapOptions,
  memo: Map<number, CommandAnalysis>,
): CommandAnalysis {
  const known = memo.get(start);
  if (known) return known;
  const { words, literal } = scanned;
  const { depth, analyze } = options;
  const result: CommandAnalysis = { commands: [], complete: true, opaque: false };
  memo.set(start, result);
  options.budget.left--;
  if (options.budget.left < 0) {
    result.complete = false;
    result.opaque = true;
    return result;
  }
  const views: string[][] = [];
  // Forms the command might also run, seen by deny rules only.
  const maybe: string[][] = [];
  const nested: SubCommand[] = [];
  let plain = true;
  const absorb = (analysis: CommandAnalysis, asCommands: boolean) => {
    if (!analysis.complete) result.complete = false;
    if (analysis.opaque) result.opaque = true;
    if (asCommands) nested.push(...analysis.commands);
    else for (const c of analysis.commands) maybe.push(...c.views);
  };
  // A value that some program might run (`GIT_PAGER=...`, `git -c k=v`): what it names is
  // seen by deny rules, but a `$` in it (`PATH=./bin:$PATH`) is only text until then.
  const mayRun = (value: string) => {
    for (const c of analyze(value, depth + 1).commands) maybe.push(...c.views);
  };
  const opaque = () => {
    result.opaque = true;
    result.complete = false;
    plain = false;
  };
  let i = start;
  while (i < words.length) {
    // Leading assignments and keywords (`A=1`, `then`, `!`).
    const assignedFrom = i;
    while (i < words.length) {
      const w = words[i]!;
      const assignment = ASSIGNMENT.exec(w);
      if (assignment) {
        plain = false;
        if (assignment[2] !== undefined) opaque(); // `a[$(cmd)]=1`
        // Programs run values of some variables (GIT_PAGER, GIT_CONFIG_VALUE_0, ...).
        mayRun(w.slice(assignment[0].length));
      } else if (!CONTROL_WORDS.has(w) || !literal[i]) break;
      i++;
    }
    if (i >= words.length) {
      // A bare assignment (`PATH=./bin;`) changes what later commands run.
      if (i > assignedFrom && ASSIGNMENT.test(words[assignedFrom]!)) {
        views.push(words.slice(assignedFrom));
      }
      break;
    }
    if (i === words.length - 1 && CLOSING_WORDS.has(words[i]!)) break;
    views.push(words.slice(i));
    if (!literal[i]) {
      // A program named by `$X`, a glob or braces cannot be known here; `~/bin/x` can.
      if (/^~[\w.-]*\/[^$`*?[]*$/.test(words[i]!)) plain = false;
      else opaque();
      break;
    }
    const name = basename(words[i]!);
    if (SHELLS.has(name)) {
      const call = shellCall(words, i);
      if (call.kind === "script") {
        const inner = analyze(call.script, depth + 1);
        for (const sub of inner.commands) {
          sub.views = [...views, ...maybe, ...sub.views];
          // `sudo bash -c 'x'` is no plainer than `sudo x`.
          if (!call.plain || !plain) sub.plain = false;
        }
        absorb(inner, true);
        return finish(result, nested, undefined);
      }
      // Commands read from stdin, a here-doc or `<(...)`: nothing to analyse.
      if (call.kind === "stdin" || !literal[call.index] || isStdinPath(words[call.index]!)) {
        opaque();
      }
      break;
    }
    if (name === "at" || name === "batch") {
      // Both run a script read from stdin (or `-f FILE`) later.
      opaque();
      break;
    }
    if (name === "source" || name === ".") {
      if (i + 1 < words.length && (!literal[i + 1] || isStdinPath(words[i + 1]!))) opaque();
      break;
    }
    if (name === "eval") {
      const inner = analyze(words.slice(i + 1).join(" "), depth + 1);
      for (const sub of inner.commands) {
        sub.views = [...views, ...maybe, ...sub.views];
        if (!plain) sub.plain = false;
      }
      absorb(inner, true);
      return finish(result, nested, undefined);
    }
    if (runsArithmetic(name, words.slice(i + 1))) opaque();
    // Options whose value git, tar, rsync or ssh run as a command: deny rules see the value,
    // and no allow rule vouches for the call (`git *` does not allow `git -c core.pager=x`).
    const runsValue = (value: string) => {
      plain = false;
      mayRun(value);
    };
    if (name === "git") gitConfigValues(words, i, runsValue, opaque);
    commandOptionValues(name, words, i, runsValue);
    if (/^(export|declare|typeset|local|readonly)$/.test(name)) {
      for (const w of words.slice(i + 1)) {
        const assignment = ASSIGNMENT.exec(w);
        if (assignment) mayRun(w.slice(assignment[0].length));
      }
    }
    if (name === "alias" || name === "hash" || name === "enable") {
      // Aliases (sh expands them on later lines), `hash -p` and loaded builtins change what a
      // later program name means: no allow rule vouches for the rest.
      result.complete = false;
    }
    if (name === "alias") {
      for (const w of words.slice(i + 1)) {
        const eq = w.indexOf("=");
        if (eq > 0) absorb(analyze(w.slice(eq + 1), depth + 1), false); // runs as written
      }
    }
    if (name === "trap" && i + 1 < words.length && !words[i + 1]!.startsWith("-")) {
      absorb(analyze(words[i + 1]!, depth + 1), true); // runs at a signal or exit
    }
    if (name === "hash") {
      // `hash -p /bin/rm ls`: later `ls` runs /bin/rm.
      const p = words.indexOf("-p", i + 1);
      if (p > 0 && p + 1 < words.length) maybe.push(words.slice(p + 1));
    }
    if (name === "enable" && words.slice(i + 1).some((w) => /^-\w*f/.test(w))) opaque();
    const wrapper = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name]! : undefined;
    if (!wrapper) break;
    const parsed = parseWrapperOptions(wrapper, words, i + 1);
    if (!wrapper.transparent || !parsed.plain) plain = false;
    if (name === "env" && parsed.split !== undefined) {
      // `env -S 'A=1 rm x'` splits its value at blanks (not as a shell would) into words
      // that go before the rest.
      const split = parsed.split.split(/\s+/).filter((w) => w !== "").map((w) =>
        w.replace(/["']/g, "")
      );
      const rest = words.slice(parsed.next);
      const inner = unwrapCommand({
        words: ["env", ...split, ...rest],
        literal: [true, ...split.map((w) => !w.includes("$")), ...literal.slice(parsed.next)],
      }, { ...options, depth: depth + 1 });
      for (const sub of inner.commands) {
        sub.views = [...views, ...maybe, ...sub.views];
        sub.plain = false;
      }
      absorb(inner, true);
      return finish(result, nested, undefined);
    }
    if (name === "env") {
      // env takes every NAME=value word before the command, whatever the name.
      while (parsed.next < words.length && words[parsed.next]!.includes("=")) {
        const w = words[parsed.next]!;
        plain = false;
        mayRun(w.slice(w.indexOf("=") + 1));
        parsed.next++;
      }
    }
    if (parsed.unknownAt !== undefined) {
      // Any later word may start the command. Last first, so each suffix finds the ones
      // after it already done and the recursion stays shallow.
      for (let k = words.length - 1; k >= parsed.unknownAt; k--) {
        if (words[k]!.startsWith("-")) continue;
        absorb(unwrapAt(scanned, k, options, memo), false);
        if (wrapper.joinsShell) absorb(analyze(words.slice(k).join(" "), depth + 1), false);
      }
      break;
    }
    if (wrapper.joinsShell && parsed.next < words.length) {
      absorb(analyze(words.slice(parsed.next).join(" "), depth + 1), false);
    }
    // `sudo -i`, `nohup` alone, `xargs` with no command (runs echo): keep the wrapper itself.
    if (parsed.next >= words.length) break;
    i = parsed.next;
  }
  const last = views.at(-1);
  if (last && basename(last[0]!) === "find") {
    const writes = findCommands(scanned, words.length - last.length, options, absorb, maybe);
    if (writes) plain = false;
  }
  // Every word from the program on must be a literal (no `$X`, globs, braces, `~`).
  if (last && literal.slice(words.length - last.length).some((l) => !l)) plain = false;
  return finish(result, nested, last && { words: last, views: [...views, ...maybe], plain });
}

function finish(
  result: CommandAnalysis,
  nested: SubCommand[],
  main: SubCommand | undefined,
): CommandAnalysis {
  if (main) {
    const seen = new Set<string>();
    main.views = main.views.filter((view) => {
      const key = JSON.stringify(view);
      return !seen.has(key) && seen.add(key);
    });
  }
  result.commands = main ? [main, ...nested] : nested;
  return result;
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

/**
 * What `find` runs or does beyond listing: `-exec CMD {} ;` (also -execdir, -ok, -okdir) as
 * commands; `-delete` as the deny-only forms `rm PATHS` and `rm -rf PATHS`; `-fprint FILE`
 * and friends as writes `> FILE`.
 */
function findCommands(
  scanned: ScannedCommand,
  at: number,
  options: UnwrapOptions,
  absorb: (analysis: CommandAnalysis, asCommands: boolean) => void,
  maybe: string[][],
): boolean {
  const { words, literal } = scanned;
  let end = at + 1;
  while (end < words.length && !/^[-(!]/.test(words[end]!)) end++;
  const paths = end > at + 1 ? words.slice(at + 1, end) : ["."];
  let writes = false;
  for (let i = at + 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === "-delete") {
      maybe.push(["rm", ...paths], ["rm", "-rf", ...paths]);
    } else if (/^-(fprint|fprint0|fls|fprintf)$/.test(w) && i + 1 < words.length) {
      writes = true;
      const target = [">", words[i + 1]!];
      absorb({
        commands: [{ words: target, views: [target], plain: literal[i + 1] ?? false }],
        complete: true,
        opaque: false,
      }, true);
    } else if (/^-(exec|execdir|ok|okdir)$/.test(w)) {
      let stop = i + 1;
      while (stop < words.length && words[stop] !== ";" && words[stop] !== "+") stop++;
      const inner = unwrapCommand(
        { words: words.slice(i + 1, stop), literal: literal.slice(i + 1, stop) },
        { ...options, depth: options.depth + 1 },
      );
      // `{}` becomes the names of found files, which the repository chooses.
      for (const sub of inner.commands) {
        if (sub.words.some((w) => w.includes("{}"))) sub.plain = false;
      }
      absorb(inner, true);
      i = stop;
    }
  }
  return writes;
}
