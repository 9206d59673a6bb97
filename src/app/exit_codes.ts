// harness's exit codes, the command-line contract in DESIGN.md: 0 done, 1 a runtime failure
// (server, tool host, session log), 2 a usage or configuration error, 3 a limit reached
// (--max-iterations, --max-tool-calls), 130 interrupted.

/**
 * The exit codes, by meaning.
 *
 * @example
 * ```ts
 * import { EXIT } from "./exit_codes.ts";
 * if (EXIT.usage !== 2 || EXIT.interrupted !== 130) throw new Error();
 * ```
 */
export const EXIT = {
  ok: 0,
  runtime: 1,
  usage: 2,
  limit: 3,
  interrupted: 130,
} as const;
