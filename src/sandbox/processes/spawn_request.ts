// What `ctx.spawn` may start, decided on the host before anything runs: the request from
// plugin code checked field by field (standard streams piped or closed, never harness's
// terminal or stdout), and the program against the tool's run grant and --deny-run.

import { basename, resolve } from "../../platform/paths.ts";
import type { SpawnRequest } from "../commands/command_sandbox.ts";
import { findProgram } from "../commands/command_sandbox_probe.ts";
import type { Grant } from "../grants/permission_name.ts";

const STDIO = new Set(["piped", "null"]);

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string");
}

/**
 * The request as sent, checked field by field (it comes from plugin code), or why not.
 * Standard streams are piped or null: "inherit" would hand a sandboxed process harness's
 * terminal (the approval prompt's keys) or its stdout (the -p answer, ACP messages).
 */
export function checkSpawnRequest(value: unknown): SpawnRequest | string {
  if (typeof value !== "object" || value === null) return "the request is not an object";
  const r = value as Record<string, unknown>;
  if (typeof r.program !== "string" || r.program === "") return "program must be a string";
  if (
    r.args !== undefined && !(Array.isArray(r.args) && r.args.every((a) => typeof a === "string"))
  ) {
    return "args must be a list of strings";
  }
  if (typeof r.cwd !== "string" || r.cwd === "") return "cwd must be a path";
  if (r.env !== undefined && !isStringRecord(r.env)) return "env must map names to strings";
  for (const name of ["stdin", "stdout", "stderr"] as const) {
    const mode = r[name];
    if (mode !== undefined && !STDIO.has(String(mode))) {
      return `${name} must be "piped" or "null" (got ${JSON.stringify(mode)}): a process does ` +
        "not share harness's terminal or output";
    }
  }
  if (r.windowsRawArguments !== undefined && typeof r.windowsRawArguments !== "boolean") {
    return "windowsRawArguments must be a boolean";
  }
  return r as unknown as SpawnRequest;
}

/**
 * Why `ctx.spawn` may not start `program`, or undefined when it may: the user's --deny-run
 * wins (matching by name too); then the tool's run grant `run` must allow it: any program
 * for `true`; with a list, an entry naming the program (`git`, or the path it resolves to),
 * as Deno's `--allow-run=git` would.
 *
 * @example
 * ```ts
 * import { runRefusal } from "./spawn_request.ts";
 * const options = { cwd: "/w", path: "/usr/bin:/bin" };
 * if (runRefusal(["cat"], [], "cat", options) !== undefined) throw new Error();
 * if (!runRefusal(["cat"], [], "sh", options)?.includes("only cat")) throw new Error();
 * if (!runRefusal(true, ["rm"], "/bin/rm", options)?.includes("--deny-run")) throw new Error();
 * ```
 */
export function runRefusal(
  run: boolean | Grant,
  denied: Grant,
  program: string,
  options: { cwd: string; path: string | undefined },
): string | undefined {
  const isPath = /[\\/]/.test(program);
  const resolved = isPath ? resolve(options.cwd, program) : findProgram(program, options.path);
  const head = `ctx.spawn cannot start "${program}"`;
  const name = basename(program);
  if (
    denied === true ||
    denied.some((entry) => entry === program || entry === resolved || entry === name)
  ) {
    return `${head}: --deny-run forbids it`;
  }
  if (run === true) return undefined;
  if (
    run !== false && run.some((e) => e === program || (resolved !== undefined && e === resolved))
  ) {
    return undefined;
  }
  const allowed = run === false || run.length === 0 ? "no program" : `only ${run.join(", ")}`;
  return `${head}: the tool's run permission, within --allow-run, allows ${allowed}`;
}
