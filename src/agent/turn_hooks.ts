// The seams through which a run steps into a turn: hooks before and after each call (Claude
// Code's PreToolUse and PostToolUse), when the user's message is sent and when the model
// would stop (UserPromptSubmit, Stop), and the checkpoint taken before the first change of a
// turn. app/ implements them (src/hooks/, src/checkpoints/); the loop only calls them.

import type { ToolResult } from "../messages.ts";
import type { ToolInfo } from "../tools/tool_runner.ts";

/** How a Stop hook's reason starts the message that sends the model back to work. */
export const STOP_HOOK_PREFIX = "[Stop hook] ";

/** A call as the hooks see it: its validated arguments and the tool. */
export interface HookedCall {
  id: string;
  name: string;
  args: unknown;
  info: ToolInfo;
}

/** What the hooks say before a call is approved. */
export interface BeforeCallVerdict {
  /** Do not run it; said to the model. */
  deny?: string;
  /** "allow": run without asking the user (a policy deny still wins); "ask": ask anyway. */
  approval?: "allow" | "ask";
  /** Arguments to use instead (validated again). */
  args?: unknown;
  /** Added to the call's result for the model. */
  context?: string;
  /** Stop the turn after this call; said to the user. */
  stop?: string;
  /** Lines for the user. */
  notices: readonly string[];
}

/** What the hooks say after a call ran. */
export interface AfterCallVerdict {
  /** Said to the model with the result (a hook's "block" reason or exit-2 stderr). */
  feedback?: string;
  /** Added to the result for the model. */
  context?: string;
  stop?: string;
  notices: readonly string[];
}

/** Steps around each tool call. */
export interface CallHooks {
  /** Whether a hook screens this tool's calls before approval (they are then asked one by one). */
  screens(tool: string): boolean;
  beforeCall(call: HookedCall, signal: AbortSignal): Promise<BeforeCallVerdict>;
  /** Right before an approved call runs: a call that may change files waits for the checkpoint. */
  beforeRun(call: HookedCall): Promise<void>;
  afterCall(call: HookedCall, result: ToolResult, signal: AbortSignal): Promise<AfterCallVerdict>;
}

/** Steps around a whole turn. */
export interface TurnHooks {
  /** The user's message is about to be sent: block it (said to the user) or add context. */
  promptSubmitted(prompt: string, signal: AbortSignal): Promise<{
    block?: string;
    context?: string;
    stop?: string;
    notices: readonly string[];
  }>;
  /**
   * The model answered without calling a tool: `goOn` makes it continue with that text.
   *
   * @param active The model is already going on because a hook said so (stop_hook_active).
   */
  stopping(answer: string, active: boolean, signal: AbortSignal): Promise<{
    goOn?: string;
    notices: readonly string[];
  }>;
  /** A conversation starts, resumes, is cleared or compacted: context for its next message. */
  sessionStarted(
    source: "startup" | "resume" | "clear" | "compact",
    signal: AbortSignal,
  ): Promise<{ context?: string; notices: readonly string[] }>;
}

/**
 * Whether a call of this tool may change files, so the turn's checkpoint must come first: an
 * MCP tool (its server runs outside the workers), or a tool that declares writes, processes or
 * native code. A tool that declares nothing else cannot touch a file in its worker.
 *
 * @example
 * ```ts
 * import { mayChangeFiles } from "./turn_hooks.ts";
 * const base = { name: "t", description: "", risk: "low" as const, parameters: {}, source: "x", origin: "builtin" as const };
 * if (mayChangeFiles({ ...base, permissions: { read: ["."] } })) throw new Error();
 * if (!mayChangeFiles({ ...base, permissions: { run: true } })) throw new Error();
 * if (!mayChangeFiles({ ...base, origin: "mcp" })) throw new Error();
 * ```
 */
export function mayChangeFiles(info: ToolInfo): boolean {
  if (info.origin === "mcp") return true;
  const declared = info.permissions ?? {};
  return [declared.write, declared.run, declared.ffi].some((value) =>
    value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0)
  );
}

/**
 * Adds a hook's text to a tool result for the model: after the data of a success, after the
 * error message of a failure.
 *
 * @param result The tool's result.
 * @param label What the text is ("Hook feedback", "Hook context").
 * @param text The hook's text.
 * @returns The result with the text.
 *
 * @example
 * ```ts
 * import { withHookText } from "./turn_hooks.ts";
 * import { makeToolResult } from "../messages.ts";
 * const r = withHookText(makeToolResult({ data: "ok" }), "Hook feedback", "run the tests");
 * if (r.data !== "ok\n\n[Hook feedback] run the tests") throw new Error(r.data ?? "");
 * ```
 */
export function withHookText(result: ToolResult, label: string, text: string): ToolResult {
  const note = `[${label}] ${text}`;
  if (result.success) {
    const data = result.data ? `${result.data}\n\n${note}` : note;
    return {
      ...result,
      data,
      metadata: { ...result.metadata, data_size_bytes: new TextEncoder().encode(data).length },
    };
  }
  return { ...result, error_message: `${result.error_message ?? ""}\n\n${note}`.trim() };
}
