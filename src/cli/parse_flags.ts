// A strict command-line flag parser: the subset of node:util parseArgs that harness uses,
// with our own one-line messages. Written here rather than imported because loading any
// node: module first costs about 8 ms of Node-compat bootstrap before the REPL prompt
// (bench/startup.ts); tests/cli/parse_flags_test.ts checks it against node:util.

import { err, ok, type Result } from "../errors.ts";

/** How one flag is written and what it holds. */
export interface FlagSpec {
  type: "string" | "boolean";
  /** One-letter alias, written `-x`. */
  short?: string;
  /** Collect every occurrence into an array instead of keeping the last. */
  multiple?: boolean;
}

export type FlagValue = string | boolean | string[];

/** Flag values by long name (only flags that were given) and the positionals in order. */
export interface ParsedFlags {
  values: Record<string, FlagValue>;
  positionals: string[];
}

type UsageError = { kind: "usage"; message: string };

/**
 * Parses `argv` against `specs`. Accepts `--name value`, `--name=value`, `-x value`, `-xvalue`,
 * grouped short booleans (`-yc`), positionals anywhere, and `--` to end flags. A lone `-` is a
 * positional. Unknown flags, missing values and values given to boolean flags are errors.
 *
 * @param argv Arguments after the program name.
 * @param specs Flags by long name.
 * @returns The parsed flags, or a usage error with a one-line message.
 *
 * @example
 * ```ts
 * import { parseFlags } from "./parse_flags.ts";
 * const r = parseFlags(["-p", "hi", "--yes", "x"], {
 *   print: { type: "string", short: "p" },
 *   yes: { type: "boolean" },
 * });
 * if (!r.ok || r.value.values.print !== "hi" || r.value.positionals[0] !== "x") throw new Error();
 * ```
 */
export function parseFlags(
  argv: readonly string[],
  specs: Readonly<Record<string, FlagSpec>>,
): Result<ParsedFlags, UsageError> {
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.short) byShort.set(spec.short, name);
  }
  const values: Record<string, FlagValue> = {};
  const positionals: string[] = [];
  const store = (name: string, value: string | boolean) => {
    const spec = specs[name]!;
    if (spec.multiple) {
      const list = values[name];
      values[name] = Array.isArray(list) ? [...list, value as string] : [value as string];
    } else {
      values[name] = value;
    }
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }

    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
      if (!spec) return usageError(unknownFlag(`--${name}`));
      if (spec.type === "boolean") {
        if (eq !== -1) return usageError(`Invalid use of --${name}: it takes no value`);
        store(name, true);
        continue;
      }
      if (eq !== -1) {
        store(name, arg.slice(eq + 1));
        continue;
      }
      const next = takeValue(argv, i, name);
      if (!next.ok) return next;
      store(name, next.value);
      i++;
      continue;
    }

    // One or more short flags: "-y", "-yc", "-pvalue", "-p value".
    for (let j = 1; j < arg.length; j++) {
      const letter = arg[j]!;
      const name = byShort.get(letter);
      if (name === undefined) return usageError(unknownFlag(`-${letter}`));
      if (specs[name]!.type === "boolean") {
        store(name, true);
        continue;
      }
      if (j + 1 < arg.length) {
        store(name, arg.slice(j + 1));
        break;
      }
      const next = takeValue(argv, i, name);
      if (!next.ok) return next;
      store(name, next.value);
      i++;
    }
  }
  return ok({ values, positionals });
}

/** The argument after `argv[i]` as the value of `--name`, refusing flag-like values. */
function takeValue(
  argv: readonly string[],
  i: number,
  name: string,
): Result<string, UsageError> {
  const next = argv[i + 1];
  if (next === undefined || next === "--") {
    return usageError(`Missing value for --${name}: run "harness --help" for usage`);
  }
  if (next.startsWith("-") && next !== "-") {
    return usageError(
      `Missing value for --${name}: to pass a value that starts with "-", write --${name}=${next}`,
    );
  }
  return ok(next);
}

function unknownFlag(flag: string): string {
  return `Unknown flag "${flag}": run "harness --help" for the list of flags`;
}

function usageError(message: string): { ok: false; error: UsageError } {
  return err({ kind: "usage", message });
}
