// Wrapper stripping for shell command analysis: `sudo rm x` runs `rm x`, `bash -c 'a; b'` runs
// `a` and `b`, `find -exec CMD ;` runs CMD. Given one simple command's words, returns what it
// really runs, with the wrapped forms kept for deny rules. Pure; used by split_command.ts.
//
// Wrappers with a known option table are parsed exactly; at an option the table does not
// know, or for wrappers without a table (ssh, su, strace, ...), every later word that is not
// an option is taken as a command that may run, for deny rules only, and the command is not
// plain. See the header of split_command.ts for what allow and deny rules rely on.

import { parseWrapperOptions, type Wrapper, WRAPPERS } from "./command_wrappers.ts";
import type {
  CommandAnalysis,
  ScannedCommand,
  SubCommand,
  UnwrapOptions,
} from "./command_analysis.ts";
import { unwrapBuiltin } from "./unwrap_builtins.ts";
import { absorb, ASSIGNMENT, markOpaque, mayRun, type Unwrapping } from "./unwrapping.ts";

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

function basename(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
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

/**
 * Where the loop over a command's words goes after one program word: on at that index, "stop"
 * (the last view is the command), or "finished" (nested commands are the whole analysis).
 */
type Step = number | "stop" | "finished";

function unwrapAt(
  scanned: ScannedCommand,
  start: number,
  options: UnwrapOptions,
  memo: Map<number, CommandAnalysis>,
): CommandAnalysis {
  const known = memo.get(start);
  if (known) return known;
  const { words, literal } = scanned;
  const result: CommandAnalysis = { commands: [], complete: true, opaque: false };
  memo.set(start, result);
  options.budget.left--;
  if (options.budget.left < 0) {
    result.complete = false;
    result.opaque = true;
    return result;
  }
  const state: Unwrapping = { result, views: [], maybe: [], nested: [], plain: true, options };
  let i = start;
  while (i < words.length) {
    const step = unwrapProgram(state, scanned, i, memo);
    if (step === "finished") return finish(result, state.nested, undefined);
    if (step === "stop") break;
    i = step;
  }
  const { views, maybe } = state;
  const last = views.at(-1);
  if (last && basename(last[0]!) === "find") {
    const writes = findCommands(
      scanned,
      words.length - last.length,
      options,
      (analysis, asCommands) => absorb(state, analysis, asCommands),
      maybe,
    );
    if (writes) state.plain = false;
  }
  // Every word from the program on must be a literal (no `$X`, globs, braces, `~`).
  if (last && literal.slice(words.length - last.length).some((l) => !l)) state.plain = false;
  return finish(
    result,
    state.nested,
    last && { words: last, views: [...views, ...maybe], plain: state.plain },
  );
}

/**
 * One round of unwrapping from word `from`: leading assignments and keywords, then the program
 * word, which may be a shell, a builtin that runs scripts, or a wrapper of a further command.
 */
function unwrapProgram(
  state: Unwrapping,
  scanned: ScannedCommand,
  from: number,
  memo: Map<number, CommandAnalysis>,
): Step {
  const { words, literal } = scanned;
  const i = skipPrefixWords(state, scanned, from);
  if (i >= words.length) {
    // A bare assignment (`PATH=./bin;`) changes what later commands run.
    if (i > from && ASSIGNMENT.test(words[from]!)) {
      state.views.push(words.slice(from));
    }
    return "stop";
  }
  if (i === words.length - 1 && CLOSING_WORDS.has(words[i]!)) return "stop";
  state.views.push(words.slice(i));
  if (!literal[i]) {
    // A program named by `$X`, a glob or braces cannot be known here; `~/bin/x` can.
    if (/^~[\w.-]*\/[^$`*?[]*$/.test(words[i]!)) state.plain = false;
    else markOpaque(state);
    return "stop";
  }
  const name = basename(words[i]!);
  const builtin = unwrapBuiltin(state, scanned, i, name);
  if (builtin !== undefined) return builtin;
  const wrapper = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name]! : undefined;
  if (!wrapper) return "stop";
  return unwrapWrapper(state, scanned, { at: i, name, wrapper }, memo);
}

/** Leading assignments and keywords (`A=1`, `then`, `!`) from `from`: the program's index. */
function skipPrefixWords(state: Unwrapping, scanned: ScannedCommand, from: number): number {
  const { words, literal } = scanned;
  let i = from;
  while (i < words.length) {
    const w = words[i]!;
    const assignment = ASSIGNMENT.exec(w);
    if (assignment) {
      state.plain = false;
      if (assignment[2] !== undefined) markOpaque(state); // `a[$(cmd)]=1`
      // Programs run values of some variables (GIT_PAGER, GIT_CONFIG_VALUE_0, ...).
      mayRun(state, w.slice(assignment[0].length));
    } else if (!CONTROL_WORDS.has(w) || !literal[i]) break;
    i++;
  }
  return i;
}

/**
 * A wrapper (`sudo`, `env`, `xargs`, `ssh`, ...) at word `at`: its options by its table, then
 * where its command starts, or every later word as a possible command past an unknown option.
 */
function unwrapWrapper(
  state: Unwrapping,
  scanned: ScannedCommand,
  { at: i, name, wrapper }: { at: number; name: string; wrapper: Wrapper },
  memo: Map<number, CommandAnalysis>,
): Step {
  const { words, literal } = scanned;
  const { options } = state;
  const { depth, analyze } = options;
  const parsed = parseWrapperOptions(wrapper, words, i + 1);
  if (!wrapper.transparent || !parsed.plain) state.plain = false;
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
      sub.views = [...state.views, ...state.maybe, ...sub.views];
      sub.plain = false;
    }
    absorb(state, inner, true);
    return "finished";
  }
  if (name === "env") {
    // env takes every NAME=value word before the command, whatever the name.
    while (parsed.next < words.length && words[parsed.next]!.includes("=")) {
      const w = words[parsed.next]!;
      state.plain = false;
      mayRun(state, w.slice(w.indexOf("=") + 1));
      parsed.next++;
    }
  }
  if (parsed.unknownAt !== undefined) {
    // Any later word may start the command. Last first, so each suffix finds the ones
    // after it already done and the recursion stays shallow.
    for (let k = words.length - 1; k >= parsed.unknownAt; k--) {
      if (words[k]!.startsWith("-")) continue;
      absorb(state, unwrapAt(scanned, k, options, memo), false);
      if (wrapper.joinsShell) absorb(state, analyze(words.slice(k).join(" "), depth + 1), false);
    }
    return "stop";
  }
  if (wrapper.joinsShell && parsed.next < words.length) {
    absorb(state, analyze(words.slice(parsed.next).join(" "), depth + 1), false);
  }
  // `sudo -i`, `nohup` alone, `xargs` with no command (runs echo): keep the wrapper itself.
  if (parsed.next >= words.length) return "stop";
  return parsed.next;
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
