// Applies the table of program_options.ts to one simple command during unwrapping: options
// and subcommands that run a command make the call not plain and show that command to deny
// rules; options that run code make it opaque; options that write show `> FILE`; global
// options before a subcommand are seen through by deny rules (`git -C . reset --hard` is also
// `git reset --hard`). Pure; called by unwrap_builtins.ts for each program word.

import { posix } from "node:path";
import { REDIRECT_WORD, type ScannedCommand, type SubCommand } from "./command_analysis.ts";
import { type OptionTable, type OptionWord, readOptions } from "./option_reader.ts";
import { PROGRAMS } from "./program_options.ts";
import type { ProgramSpec, SubcommandSpec } from "./program_spec.ts";
import { readAwkProgram, readSedScript, type ScriptReport } from "./script_checks.ts";
import { absorb, markOpaque, mayRun, type Unwrapping } from "./unwrapping.ts";

/**
 * Notes what program `name` at word `at` does with its options, subcommand and operands.
 *
 * @param state The unwrapping to add to.
 * @param scanned The simple command.
 * @param at Index of the program word.
 * @param name The program's basename.
 */
export function programEffects(
  state: Unwrapping,
  scanned: ScannedCommand,
  at: number,
  name: string,
): void {
  const spec = Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name]! : undefined;
  if (!spec) return;
  const { words } = scanned;
  if (spec.code) markOpaque(state);
  if (spec.asks && !words.slice(at + 1).some((w) => spec.plainWith?.includes(w))) {
    state.plain = false;
  }
  if (!spec.subcommands && !spec.seeThrough) {
    readProgram(state, scanned, spec, readOptions(spec, words, at + 1));
    return;
  }
  // Global options, up to the subcommand (or make's first target).
  const globals = readOptions(spec, words, at + 1, { untilOperand: true });
  if (
    spec.toolchain && globals.at(-1)?.kind === "operand" && words[globals.at(-1)!.at]![0] === "+"
  ) {
    globals.push(...readOptions(spec, words, globals.at(-1)!.at + 1, { untilOperand: true }));
  }
  const operand = globals.at(-1)?.kind === "operand" ? globals.at(-1)! : undefined;
  applyOptions(state, scanned, globals.filter((word) => word !== operand));
  // A global option the table does not know may take a value: which word is the subcommand?
  if (globals.some((word) => word.kind === "option" && word.unknown)) state.plain = false;
  seeThrough(state, scanned, { at, spec, globals });
  if (operand === undefined) return;
  if (!spec.subcommands) {
    // No subcommand table (make, docker): the program's options hold on the whole line.
    readProgram(state, scanned, spec, [operand, ...readOptions(spec, words, operand.at + 1)]);
    return;
  }
  const subcommand = operand.kind === "operand" ? operand.word : "";
  const sub = Object.hasOwn(spec.subcommands, subcommand)
    ? spec.subcommands[subcommand]!
    : undefined;
  // An alias (`git st`) or a `git-NAME` program on PATH may run anything.
  if (!sub && spec.onlyKnownSubcommands) state.plain = false;
  const table = mergeTables(sub ?? {}, spec.anySubcommand ?? {});
  const rest = readOptions(table, words, operand.at + 1);
  applyOptions(state, scanned, rest);
  if (sub) applySubcommand(state, scanned, sub, rest);
}

/** A program without subcommands: its options, then its operands (scripts, `+CMD`, `A=1`). */
function readProgram(
  state: Unwrapping,
  scanned: ScannedCommand,
  spec: ProgramSpec,
  read: OptionWord[],
): void {
  applyOptions(state, scanned, read);
  const operands = read.filter((word) => word.kind === "operand");
  const given = (options: readonly string[] | undefined) =>
    read.some((word) => word.kind === "option" && options?.includes(word.name));
  for (const operand of operands) {
    if (spec.plusPlain && operand.word.startsWith("+") && !spec.plusPlain.test(operand.word)) {
      markOpaque(state); // `vim +'!cmd'`, `less +'|cmd'`: commands for the program
    }
    if (spec.assignments && /^[A-Za-z_][\w.-]*[:+?!]?=/.test(operand.word)) {
      // `make SHELL=./x` or `make CC='...'`: a variable its recipes may run.
      state.plain = false;
      mayRun(state, operand.word.slice(operand.word.indexOf("=") + 1));
    }
  }
  if (!spec.script || given(spec.sandbox)) {
    if (given(spec.inPlace)) writeOperands(state, scanned, operands);
    return;
  }
  const scripts = read.flatMap((word) =>
    word.kind === "option" && spec.script!.options.includes(word.name) && word.value !== undefined
      ? [word.value]
      : []
  );
  let files = operands;
  if (scripts.length === 0 && !given(spec.script.files) && operands[0]) {
    scripts.push(operands[0].word);
    files = operands.slice(1);
  }
  const reader = spec.script.language === "sed" ? readSedScript : readAwkProgram;
  for (const script of scripts) applyScript(state, reader(script));
  if (given(spec.inPlace)) writeOperands(state, scanned, files);
}

function applyScript(state: Unwrapping, report: ScriptReport): void {
  if (report.code) markOpaque(state);
  if (report.asks) state.plain = false;
  for (const command of report.runs) runs(state, command);
  for (const file of report.writes) writes(state, file, true);
}

/** What each option does, by its effect in the table. */
function applyOptions(state: Unwrapping, scanned: ScannedCommand, read: OptionWord[]): void {
  for (const word of read) {
    if (word.kind !== "option" || word.effect === undefined) continue;
    if (word.value === undefined) {
      // An option that acts through its value, given none (`git grep -O`, `man -H`): it
      // runs or writes what a default or a config names.
      state.plain = false;
      continue;
    }
    switch (word.effect) {
      case "code":
        markOpaque(state);
        break;
      case "runs":
        runs(state, word.value);
        break;
      case "asks":
        state.plain = false;
        break;
      case "writes":
        writes(state, word.value, scanned.literal[word.valueAt ?? word.at] ?? false);
        break;
      default: {
        const never: never = word.effect;
        throw new Error(`unknown effect ${never}`);
      }
    }
  }
}

/**
 * A command line the program runs: deny rules see it, no allow rule vouches for the call. A
 * `key=value` setting (`git -c core.pager=CMD`, `--checkpoint-action=exec=CMD`) may run its
 * value; its `$` is only text until then, as in an assignment.
 */
function runs(state: Unwrapping, value: string): void {
  state.plain = false;
  const setting = /^[\w.-]+=/.exec(value);
  if (setting) {
    mayRun(state, value);
    mayRun(state, value.slice(setting[0].length).replace(/^!/, ""));
    return;
  }
  const { depth, analyze } = state.options;
  absorb(state, analyze(value, depth + 1), false);
}

/** A file the program writes: the sub-command `> FILE`, as a redirection would be. */
function writes(state: Unwrapping, file: string, literal: boolean): void {
  const path = literal ? posix.normalize(file) : file;
  const words = [REDIRECT_WORD, path];
  const command: SubCommand = { words, views: [words], plain: literal };
  absorb(state, { commands: [command], complete: true, opaque: false }, true);
}

function writeOperands(state: Unwrapping, scanned: ScannedCommand, operands: OptionWord[]): void {
  for (const operand of operands) {
    if (operand.kind === "operand") {
      writes(state, operand.word, scanned.literal[operand.at] ?? false);
    }
  }
}

/**
 * Deny rules see the command without its global options: `git -C . reset --hard` also as
 * `git reset --hard`. After an option the table does not know (it may or may not take a
 * value), or one whose value is optional, each later word may be the subcommand.
 */
function seeThrough(
  state: Unwrapping,
  scanned: ScannedCommand,
  { at, spec, globals }: { at: number; spec: ProgramSpec; globals: OptionWord[] },
): void {
  const { words } = scanned;
  const last = globals.at(-1);
  if (last?.kind === "operand" && last.at > at + 1) {
    state.maybe.push([words[at]!, ...words.slice(last.at)]);
  }
  const unsure = globals.find((word) =>
    word.kind === "option" &&
    (word.unknown || (word.value === undefined && spec.optional?.includes(word.name)))
  );
  if (unsure === undefined) return;
  for (let k = unsure.at + 1; k < words.length; k++) {
    if (!words[k]!.startsWith("-")) state.maybe.push([words[at]!, ...words.slice(k)]);
  }
}

/** A subcommand's own rules: it asks, runs the rest of the line or a program operand. */
function applySubcommand(
  state: Unwrapping,
  scanned: ScannedCommand,
  sub: SubcommandSpec,
  rest: OptionWord[],
): void {
  const { words } = scanned;
  const after = words.slice(rest[0]?.at ?? words.length);
  if (sub.asks && !after.some((w) => sub.plainWith?.includes(w))) state.plain = false;
  for (const word of rest) {
    if (word.kind !== "option" || !sub.plainValues || word.value === undefined) continue;
    const plain = Object.hasOwn(sub.plainValues, word.name)
      ? sub.plainValues[word.name]!
      : undefined;
    if (plain && !plain.includes(word.value)) state.plain = false;
  }
  const first = rest.find((word) => word.kind === "operand");
  if (sub.runsOperand && first?.kind === "operand") runs(state, first.word);
  if (sub.runsAfter !== undefined && first?.kind === "operand" && first.word === sub.runsAfter) {
    // `submodule foreach [--recursive] CMD...`, `bisect run CMD...`: the rest runs.
    let k = first.at + 1;
    while (k < words.length && words[k]!.startsWith("-")) k++;
    if (k < words.length) runs(state, words.slice(k).join(" "));
    else state.plain = false;
  }
}

/** A subcommand's table with the options every subcommand takes. */
function mergeTables(sub: OptionTable, any: OptionTable): OptionTable {
  return {
    values: [...(sub.values ?? []), ...(any.values ?? [])],
    optional: [...(sub.optional ?? []), ...(any.optional ?? [])],
    flags: [...(sub.flags ?? []), ...(any.flags ?? [])],
    effects: { ...any.effects, ...sub.effects },
    ...(sub.singleDash || any.singleDash ? { singleDash: true } : {}),
  };
}
