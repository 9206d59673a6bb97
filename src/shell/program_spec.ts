// The shape of the option tables of program_options.ts and git_options.ts: what a program's
// subcommands, operands and scripts do beyond its options (option_reader.ts reads those), and
// short helpers for writing the tables as data.

import type { Effect, OptionTable } from "./option_reader.ts";

/** One subcommand of a program with subcommands (`git config`, `npm exec`). */
export interface SubcommandSpec extends OptionTable {
  /** The subcommand runs what a config names or changes what later runs: it asks. */
  asks?: boolean;
  /** ...unless one of these words follows it (`git config --get`, `npm config list`). */
  plainWith?: readonly string[];
  /** After this operand word, the rest is a command it runs (`submodule foreach CMD`). */
  runsAfter?: string;
  /** Its first operand is a program it runs (`git merge-index PROGRAM`). */
  runsOperand?: boolean;
  /** The only values of an option that keep the call plain (`merge -s ort`); others ask. */
  plainValues?: Readonly<Record<string, readonly string[]>>;
}

/** A program: its own option table, then what its subcommands, operands and scripts do. */
export interface ProgramSpec extends OptionTable {
  /**
   * Subcommands by name (an empty object for one that does nothing special). The program's
   * own options are the global ones before the subcommand; deny rules also see the command
   * without them (`git -C . reset --hard` as `git reset --hard`).
   */
  subcommands?: Readonly<Record<string, SubcommandSpec>>;
  /** Options every subcommand takes (git's `--upload-pack`, `--ext-diff`, `--output`). */
  anySubcommand?: OptionTable;
  /** Any subcommand not listed asks: git and cargo run aliases and `git-NAME` programs. */
  onlyKnownSubcommands?: boolean;
  /** Without a subcommand table: the first operand is a target or subcommand all the same. */
  seeThrough?: boolean;
  /** A `+NAME` word before the subcommand picks a toolchain (`cargo +nightly build`). */
  toolchain?: boolean;
  /** Every call asks (`crontab FILE` installs jobs)... */
  asks?: boolean;
  /** ...unless one of these words is given (`crontab -l`). */
  plainWith?: readonly string[];
  /** Every call reads commands it may run from its input (`ed`, `ex`): opaque. */
  code?: boolean;
  /** The program's script (sed, awk): given by these options, else its first operand. */
  script?: { language: "sed" | "awk"; options: readonly string[]; files: readonly string[] };
  /** Options under which the script cannot run or write anything (GNU `--sandbox`). */
  sandbox?: readonly string[];
  /** Options that make every file operand a file written (`sed -i`). */
  inPlace?: readonly string[];
  /** `NAME=value` operands set variables that recipes run (`make CC=...`): they ask. */
  assignments?: boolean;
  /** A `+CMD` operand is a command for the program (vim, less); only these are plain. */
  plusPlain?: RegExp;
}

/** Words separated by single spaces, as a list: option tables stay short to read. */
export function names(text: string): readonly string[] {
  return text.split(" ");
}

export const RUNS: Effect = "runs";
export const CODE: Effect = "code";
export const ASKS: Effect = "asks";
export const WRITES: Effect = "writes";
