// Reads a program's options as getopt does, from the option table of program_options.ts:
// bundled short options (`-xvI CMD`), attached values (`-oFILE`, `--to-command=CMD`), values
// in the next word, tar's old-style first word (`tar xIf CMD a.tar`), Go's one-dash long
// options, and GNU long-option abbreviations (any unique prefix, `--to-com=CMD`). Pure; used by
// program_effects.ts and, for wrappers, command_wrappers.ts.

/**
 * What an option (or an operand word) makes a program do, strongest first:
 * - `code`: its value is code in a language that can run any program (`make --eval`,
 *   `vim -c`): the command is opaque, so every deny rule on commands meets it.
 * - `runs`: its value is a command the program runs (`tar --to-command`, `rsync -e`): deny
 *   rules see that command, and no allow rule vouches for the call.
 * - `asks`: it makes the program read commands or settings from elsewhere, or run what a
 *   config names (`git --git-dir`, `awk -f`, `git difftool`): no allow rule vouches for it.
 * - `writes`: its value is a file the program writes (`sort -o`): seen as the write
 *   redirection `> FILE`, which rules match like any other.
 */
export type Effect = "code" | "runs" | "asks" | "writes";

/** How strong each effect is: an ambiguous abbreviation takes the strongest it may mean. */
const STRENGTH: Record<Effect, number> = { code: 3, runs: 2, asks: 1, writes: 0 };

/** How a program reads its options, and what some of them do. Options are written as used. */
export interface OptionTable {
  /** Options that take a value: `-f FILE` or `-fFILE`, `--file FILE` or `--file=FILE`. */
  values?: readonly string[];
  /** Options whose value is optional and only attached: `-O[CMD]`, `--html[=BROWSER]`. */
  optional?: readonly string[];
  /** Options without a value, listed where they share a prefix with an option that acts. */
  flags?: readonly string[];
  /** What options do. An option named only here takes a value. */
  effects?: Readonly<Record<string, Effect>>;
  /** Long options are also written with one dash (`-exec`, `-toolexec`), as Go reads them. */
  singleDash?: boolean;
  /** A first word without a dash is a bundle of short options (`tar xzf a.tar`). */
  oldStyle?: boolean;
}

/** One word (or two, with a separate value) of a command line as the program reads it. */
export type OptionWord =
  | {
    kind: "option";
    /** The option as the table names it (`--to-command`), or as written when unknown. */
    name: string;
    /** Its value, attached or in the next word. */
    value?: string;
    /** Index of the word holding the value. */
    valueAt?: number;
    /** Index of the option's word. */
    at: number;
    /** What it does, if the table says. */
    effect?: Effect;
    /** The option is not in the table (or an abbreviation of several): not fully understood. */
    unknown?: boolean;
  }
  | { kind: "operand"; word: string; at: number };

/** Whether an option of `table` takes a value in the next word when none is attached. */
function takesValue(table: OptionTable, option: string): boolean {
  if (table.values?.includes(option)) return true;
  if (table.optional?.includes(option) || table.flags?.includes(option)) return false;
  return table.effects !== undefined && Object.hasOwn(table.effects, option);
}

function effectOf(table: OptionTable, option: string): Effect | undefined {
  return table.effects !== undefined && Object.hasOwn(table.effects, option)
    ? table.effects[option]
    : undefined;
}

function longOptions(table: OptionTable): string[] {
  const all = [
    ...(table.values ?? []),
    ...(table.optional ?? []),
    ...(table.flags ?? []),
    ...Object.keys(table.effects ?? {}),
  ];
  return [...new Set(all.filter((option) => option.startsWith("--")))];
}

/**
 * Resolves a long option as GNU getopt does: an exact name, else the only option it is a
 * prefix of. A prefix of several resolves to all of them (the program refuses it, but a
 * rule must not assume so).
 *
 * @param name The option as written, without `=value` (`--to-com`).
 * @param known The long options a program knows.
 * @returns The options it may mean; empty when it is none of them.
 *
 * @example
 * ```ts
 * import { resolveLongOption } from "./option_reader.ts";
 * const known = ["--to-command", "--to-stdout", "--totals", "--checkpoint"];
 * if (resolveLongOption("--to-com", known).join() !== "--to-command") throw new Error();
 * if (resolveLongOption("--to", known).length !== 3) throw new Error();
 * if (resolveLongOption("--checkpoint", known).join() !== "--checkpoint") throw new Error();
 * ```
 */
export function resolveLongOption(name: string, known: readonly string[]): string[] {
  if (known.includes(name)) return [name];
  if (name.length <= 2) return [];
  return known.filter((option) => option.startsWith(name));
}

/**
 * Reads the options and operands of a command from word `from` on. After `--` every word is
 * an operand. With `untilOperand`, reading stops after the first operand (the subcommand).
 *
 * @param table The program's option table.
 * @param words The command's words.
 * @param from The first word after the program (or subcommand) name.
 * @param options `untilOperand`: stop at the first operand.
 * @returns The options and operands in order.
 *
 * @example
 * ```ts
 * import { readOptions } from "./option_reader.ts";
 * const table = { values: ["-f"], effects: { "-I": "runs", "--to-command": "runs" } } as const;
 * const read = readOptions(table, ["tar", "-xvI", "gzip -d", "--to-com=cat", "-fa.tar"], 1);
 * const names = read.map((w) => w.kind === "option" ? `${w.name}=${w.value ?? ""}` : w.word);
 * if (names.join("|") !== "-x=|-v=|-I=gzip -d|--to-command=cat|-f=a.tar") throw new Error(names.join("|"));
 * ```
 */
export function readOptions(
  table: OptionTable,
  words: readonly string[],
  from: number,
  options: { untilOperand?: boolean } = {},
): OptionWord[] {
  const out: OptionWord[] = [];
  const known = longOptions(table);
  let i = from;
  if (table.oldStyle && i < words.length && /^[A-Za-z]+$/.test(words[i]!)) {
    // tar's old style: each letter that takes a value takes the next unused word.
    let next = i + 1;
    for (const letter of words[i]!) {
      const option = `-${letter}`;
      const word: OptionWord = { kind: "option", name: option, at: i };
      const effect = effectOf(table, option);
      if (effect) word.effect = effect;
      if (takesValue(table, option) && next < words.length) {
        word.value = words[next]!;
        word.valueAt = next++;
      }
      out.push(word);
    }
    i = next;
  }
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--") {
      for (let k = i + 1; k < words.length; k++) {
        out.push({ kind: "operand", word: words[k]!, at: k });
      }
      break;
    }
    if (!w.startsWith("-") || w === "-") {
      out.push({ kind: "operand", word: w, at: i });
      if (options.untilOperand) break;
      continue;
    }
    if (w.startsWith("--") || (table.singleDash && w.length > 2)) {
      i = readLong(table, known, words, i, out);
      continue;
    }
    i = readShortBundle(table, words, i, out);
  }
  return out;
}

/** A long option at word `i`; returns the index of its last word (the value's, if separate). */
function readLong(
  table: OptionTable,
  known: readonly string[],
  words: readonly string[],
  i: number,
  out: OptionWord[],
): number {
  const w = words[i]!;
  const eq = w.indexOf("=");
  const written = (eq < 0 ? w : w.slice(0, eq)).replace(/^-(?!-)/, "--");
  const meant = resolveLongOption(written, known);
  const word: OptionWord = {
    kind: "option",
    name: meant.length === 1 ? meant[0]! : written,
    at: i,
  };
  if (meant.length !== 1) word.unknown = true;
  const effects = meant.map((option) => effectOf(table, option)).filter((e) => e !== undefined);
  const effect = effects.sort((a, b) => STRENGTH[b] - STRENGTH[a])[0];
  if (effect) word.effect = effect;
  let last = i;
  if (eq >= 0) {
    word.value = w.slice(eq + 1);
    word.valueAt = i;
  } else if (meant.some((option) => takesValue(table, option)) && i + 1 < words.length) {
    word.value = words[i + 1]!;
    word.valueAt = last = i + 1;
  }
  out.push(word);
  return last;
}

/** Short options bundled in word `i` (`-xvf a.tar`); returns the index of its last word. */
function readShortBundle(
  table: OptionTable,
  words: readonly string[],
  i: number,
  out: OptionWord[],
): number {
  const w = words[i]!;
  for (let k = 1; k < w.length; k++) {
    const option = `-${w[k]}`;
    const word: OptionWord = { kind: "option", name: option, at: i };
    const effect = effectOf(table, option);
    if (effect) word.effect = effect;
    const known = effect !== undefined || table.values?.includes(option) ||
      table.optional?.includes(option) || table.flags?.includes(option);
    if (!known) word.unknown = true;
    out.push(word);
    const rest = w.slice(k + 1);
    if (table.optional?.includes(option)) {
      if (rest !== "") Object.assign(word, { value: rest, valueAt: i });
      return i;
    }
    if (takesValue(table, option)) {
      if (rest !== "") {
        Object.assign(word, { value: rest, valueAt: i });
        return i;
      }
      if (i + 1 < words.length) Object.assign(word, { value: words[i + 1]!, valueAt: i + 1 });
      return Math.min(i + 1, words.length - 1);
    }
  }
  return i;
}
