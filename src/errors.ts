// Errors as data: every failure the harness expects has a kind and one destination
// (the model, the user, or an abort). Functions that can fail return Result<T, AgentError>;
// throwing is for programmer bugs. This module imports nothing.

export type AgentError =
  | { kind: "unknown_tool"; tool: string }
  | { kind: "invalid_arguments"; tool: string; issues: string[] }
  | { kind: "denied"; tool: string; by: "policy" | "user"; detail?: string }
  | { kind: "sandbox_violation"; tool: string; permission: string }
  | { kind: "tool_failed"; tool: string; message: string; timedOut: boolean }
  | { kind: "provider_unreachable"; baseUrl: string; cause: string }
  /** The server accepted the connection and sent nothing before the first-byte timeout. */
  | { kind: "provider_silent"; baseUrl: string; cause: string }
  | { kind: "provider_http"; baseUrl: string; status: number; message: string }
  /** `inProcess`: the in-process model (--model-file) failed; `baseUrl` is then its file name. */
  | { kind: "provider_stream"; baseUrl: string; message: string; inProcess?: boolean }
  | { kind: "plugin_invalid"; file: string; reason: string }
  | { kind: "config_invalid"; file: string; reason: string }
  | { kind: "usage"; message: string }
  /** The session database cannot be opened, read or written; `reason` ends with what to do. */
  | { kind: "session_store"; file: string; action: "open" | "read" | "write"; reason: string };

export type Result<T, E = AgentError> = { ok: true; value: T } | { ok: false; error: E };

/**
 * Wraps a value as a successful Result.
 *
 * @example
 * ```ts
 * import { ok } from "./errors.ts";
 * const r = ok(3);
 * if (!r.ok || r.value !== 3) throw new Error();
 * ```
 */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/**
 * Wraps an error as a failed Result.
 *
 * @example
 * ```ts
 * import { err } from "./errors.ts";
 * const r = err({ kind: "usage", message: "bad" });
 * if (r.ok) throw new Error();
 * ```
 */
export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}

/**
 * Formats an error for the user in Deno's style: sentence case, quoted values, a colon
 * before detail, then what to do next.
 *
 * @example
 * ```ts
 * import { formatAgentError } from "./errors.ts";
 * const text = formatAgentError({ kind: "usage", message: "Unknown flag \"--x\"" });
 * if (!text.startsWith("Unknown flag")) throw new Error(text);
 * ```
 */
export function formatAgentError(error: AgentError): string {
  switch (error.kind) {
    case "unknown_tool":
      return `Unknown tool "${error.tool}"`;
    case "invalid_arguments":
      return `Invalid arguments for "${error.tool}": ${error.issues.join("; ")}`;
    case "denied":
      return `Call to "${error.tool}" denied by ${error.by}${
        error.detail ? `: ${error.detail}` : ""
      }`;
    case "sandbox_violation":
      return `Tool "${error.tool}" needs ${error.permission}`;
    case "tool_failed":
      return `Tool "${error.tool}" failed: ${error.message}`;
    case "provider_unreachable":
      return `Cannot reach model server "${error.baseUrl}": ${error.cause}`;
    case "provider_silent":
      return `Model server "${error.baseUrl}" accepted the connection but ${error.cause}`;
    case "provider_http":
      return `Model server "${error.baseUrl}" answered ${error.status}: ${error.message}`;
    case "provider_stream":
      return error.inProcess
        ? `The in-process model "${error.baseUrl}" failed mid-answer: ${error.message}`
        : `Model server "${error.baseUrl}" failed mid-answer: ${error.message}`;
    case "plugin_invalid":
      return `Cannot load plugin "${error.file}": ${error.reason}`;
    case "config_invalid":
      return `Invalid config file "${error.file}": ${error.reason}`;
    case "usage":
      return error.message;
    case "session_store":
      return `Cannot ${error.action} session database "${error.file}": ${error.reason}`;
    default: {
      const never: never = error;
      throw new Error(`unhandled error kind ${JSON.stringify(never)}`);
    }
  }
}
