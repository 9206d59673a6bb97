// Deno's permission flags on harness's command line. A compiled binary's own Deno permissions
// are fixed, so harness parses `--allow-*` / `--deny-*` itself, before its own flags
// (run_cli.ts calls parseGrantFlags first), into the Grants that every tool is confined to.

import { type AgentError, err, ok, type Result } from "../errors.ts";
import { emptyGrants, type Grants } from "../sandbox/grants/grants.ts";
import {
  type Grant,
  PERMISSION_NAMES,
  type PermissionName,
} from "../sandbox/grants/permission_name.ts";
import { normalisePermissionValue } from "../sandbox/grants/permission_value.ts";
import { OPTIONAL_VALUE_FLAGS, SHORT_BOOLEAN_LETTERS, SUBCOMMANDS } from "./args.ts";

const SHORT_FLAGS: Record<string, PermissionName | "all"> = {
  R: "read",
  W: "write",
  N: "net",
  E: "env",
  S: "sys",
  A: "all",
};

/**
 * What the command-line parser that runs after this one (args.ts) accepts, so that short flags
 * can be split out of mixed groups (`-yR`) and a stray value can be told from a subcommand.
 */
export const HARNESS_ARGUMENTS = {
  /** Words that start a subcommand; arguments after them are the subcommand's. */
  subcommands: SUBCOMMANDS as readonly string[],
  /** Letters of harness's own short flags that take no value (`-y`, `-c`, `-V`, `-h`). */
  shortBooleans: SHORT_BOOLEAN_LETTERS,
  /** Flags whose value is optional: `--resume -R ID` still resumes ID once -R is out. */
  optionalValueFlags: OPTIONAL_VALUE_FLAGS as readonly string[],
};

/** What a value of each permission looks like, to spot `--allow-net example.com`. */
const VALUE_SHAPES: Record<PermissionName, RegExp> = {
  read: /^[^\s-]\S*$/,
  write: /^[^\s-]\S*$/,
  ffi: /^[^\s-]\S*$/,
  run: /^[^\s-]\S*$/,
  net: /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9*][A-Za-z0-9.*-]*)(:\d+)?$/,
  env: /^[A-Za-z_][A-Za-z0-9_]*\*?$/,
  sys: /^[A-Za-z]+$/,
};

type UsageError = { kind: "usage"; message: string };

function isDenoLetter(letter: string): boolean {
  return Object.hasOwn(SHORT_FLAGS, letter);
}

function usage(message: string): { ok: false; error: UsageError } {
  return err({ kind: "usage", message });
}

/**
 * A usage error when the valueless `flag` at `argv[i]` is directly followed by what looks
 * like its value written with a space (`--allow-read .`), and that argument would otherwise
 * be a stray positional: not a subcommand word, not after one, and not followed by more
 * words (`-R fix the tests` is a prompt missing its -p, which the CLI parser explains).
 */
function valueWithSpace(
  argv: readonly string[],
  i: number,
  flag: string,
  kind: PermissionName,
  harness: typeof HARNESS_ARGUMENTS,
): UsageError | undefined {
  const { subcommands, optionalValueFlags } = harness;
  const next = argv[i + 1];
  if (next === undefined || next.startsWith("-") || subcommands.includes(next)) return undefined;
  const after = argv[i + 2];
  if (after !== undefined && !after.startsWith("-")) return undefined;
  const before = argv.slice(0, i);
  const previous = before.at(-1);
  if (
    (previous !== undefined && optionalValueFlags.includes(previous)) ||
    before.some((arg) => subcommands.includes(arg))
  ) {
    return undefined;
  }
  if (!next.split(",").every((part) => VALUE_SHAPES[kind].test(part))) return undefined;
  return {
    kind: "usage",
    message: `Unexpected argument "${next}" after ${flag}: a permission flag takes its list ` +
      `after "=", so write ${flag}=${next}`,
  };
}

function merge(current: Grant, added: Grant): Grant {
  if (current === true || added === true) return true;
  return [...new Set([...current, ...added])];
}

/**
 * Takes Deno's permission flags out of argv. Recognised: `--allow-<name>[=a,b]`,
 * `--deny-<name>[=a,b]` for read, write, net, run, env, sys, ffi; `-A` / `--allow-all`;
 * the short forms `-R -W -N -E -S` (alone, clustered as `-RW`, with `=value` on a single one
 * as Deno accepts, or grouped with harness's short booleans as in `-yR`, which leaves `-y`).
 * Repeated flags merge. Anything else, including look-alikes such as `--allow-foo`, stays in
 * `rest` in order for the CLI parser. Parsing stops at `--`.
 *
 * @param argv Command-line arguments.
 * @param options `cwd` resolves relative paths (default `Deno.cwd()`); `harness` describes
 * the flags and subcommands of the parser that runs next (default {@link HARNESS_ARGUMENTS}).
 * @returns The grants and the other arguments, or a usage error: an empty value, a value on
 * `-A` or on a group (`-RW=src`), or a value written after a space (`--allow-read .`).
 *
 * @example
 * ```ts
 * import { parseGrantFlags } from "./grant_flags.ts";
 * const r = parseGrantFlags(["-p", "hi", "--allow-read=src,docs", "-yN"], { cwd: "/w" });
 * if (!r.ok) throw new Error();
 * if (JSON.stringify(r.value.grants.allow.read) !== '["/w/src","/w/docs"]') throw new Error();
 * if (r.value.rest.join(" ") !== "-p hi -y" || r.value.grants.allow.net !== true) {
 *   throw new Error();
 * }
 * const spaced = parseGrantFlags(["--allow-read", "."], { cwd: "/w" });
 * if (spaced.ok || !JSON.stringify(spaced.error).includes("write --allow-read=.")) throw new Error();
 * ```
 */
export function parseGrantFlags(
  argv: readonly string[],
  options: { cwd?: string; harness?: typeof HARNESS_ARGUMENTS } = {},
): Result<{ grants: Grants; rest: string[] }, AgentError> {
  const cwd = options.cwd ?? Deno.cwd();
  const harness = options.harness ?? HARNESS_ARGUMENTS;
  const grants = emptyGrants();
  const rest: string[] = [];
  const add = (side: "allow" | "deny", kind: PermissionName, value: string | undefined) => {
    const grant: Grant = value === undefined
      ? true
      : value.split(",").map((v) => normalisePermissionValue(kind, v, cwd));
    grants[side][kind] = merge(grants[side][kind], grant);
  };
  const addShort = (letter: string, value: string | undefined) => {
    const kind = SHORT_FLAGS[letter]!;
    if (kind !== "all") add("allow", kind, value);
    else for (const name of PERMISSION_NAMES) grants.allow[name] = true;
  };
  const emptyValue = (arg: string, value: string | undefined) =>
    value !== undefined && value.split(",").some((v) => v === "")
      ? usage(
        `Empty value in "${arg}": give a comma-separated list such as ${
          arg.split("=")[0]
        }=./src,./docs, or no value to allow everything`,
      )
      : undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === "--allow-all") {
      addShort("A", undefined);
      continue;
    }
    if (arg.startsWith("--allow-all=")) return usage(takesNoValue("--allow-all", arg));
    const long = /^--(allow|deny)-(read|write|net|run|env|sys|ffi)(?:=(.*))?$/s.exec(arg);
    if (long) {
      const side = long[1] as "allow" | "deny";
      const kind = long[2] as PermissionName;
      const value = long[3];
      const empty = emptyValue(arg, value);
      if (empty) return empty;
      if (value === undefined) {
        const spaced = valueWithSpace(argv, i, arg, kind, harness);
        if (spaced) return err(spaced);
      }
      add(side, kind, value);
      continue;
    }
    if (!/^-[^-]/.test(arg)) {
      rest.push(arg);
      continue;
    }
    // A group of short flags: Deno's letters and harness's booleans, in any order, then
    // possibly `=value` or a harness flag that takes a value (`-yRp PROMPT`).
    const letters = arg.slice(1);
    let end = 0;
    while (
      end < letters.length &&
      (isDenoLetter(letters[end]!) || harness.shortBooleans.includes(letters[end]!))
    ) {
      end++;
    }
    const head = letters.slice(0, end);
    const remainder = letters.slice(end);
    const deno = [...head].filter(isDenoLetter);
    if (deno.length === 0) {
      rest.push(arg);
      continue;
    }
    if (remainder.startsWith("=")) {
      const value = remainder.slice(1);
      if (head === "A") return usage(takesNoValue("-A", arg));
      if (head.length > 1) {
        const each = [...head].map((l) =>
          isDenoLetter(l) && l !== "A" ? `-${l}=${value}` : `-${l}`
        );
        return usage(
          `Invalid use of "${arg}": only a single flag takes a value, e.g. ${each.join(" ")}`,
        );
      }
      const empty = emptyValue(arg, value);
      if (empty) return empty;
      addShort(head, value);
      continue;
    }
    const last = head.at(-1)!;
    if (remainder === "" && last !== "A" && isDenoLetter(last)) {
      const kind = SHORT_FLAGS[last] as PermissionName;
      const spaced = valueWithSpace(argv, i, `-${last}`, kind, harness);
      if (spaced) return err(spaced);
    }
    for (const letter of deno) addShort(letter, undefined);
    const kept = [...head].filter((letter) => !isDenoLetter(letter)).join("") + remainder;
    if (kept !== "") rest.push(`-${kept}`);
  }
  return ok({ grants, rest });
}

function takesNoValue(flag: string, arg: string): string {
  const value = arg.slice(arg.indexOf("=") + 1) || "PATHS";
  return `Invalid use of ${flag}: it takes no value because it allows everything; to allow less, ` +
    `write a flag such as --allow-read=${value}`;
}
