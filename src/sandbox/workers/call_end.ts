// How one call in a tool's sandbox worker ends, in the steps the tool host (tool_host.ts)
// takes: the worker's reply, the call's timeout or the user's abort, whichever comes first
// (replyOrStop); what each means (replyEnd, stoppedEnd); and the result the model reads
// (callResult: timed, cut to the output limits with the full text saved, the tool's images
// checked and hashed).

import { makeToolResult, type ToolErrorType } from "../../messages.ts";
import type { ToolRun } from "../../tools/tool_entry.ts";
import type { Reply } from "./sandbox_worker.ts";
import type { PreviewResult } from "../../tools/file_change.ts";
import { savedOutputFile, type ToolCut, truncateToolResult } from "./truncate_output.ts";
import { checkedImages } from "./tool_images.ts";

/** How a call ended, before it is a result: what the tool replied, or why there is no reply. */
export interface CallEnd {
  /** The output for the model (a successful call). */
  data?: string;
  errorType?: ToolErrorType;
  message?: string;
  /** The tool cut its own output (run_command): how many bytes it had. */
  outputBytes?: number;
  /** The tool cut its own output: the bytes it left out, and the file it names (unchecked). */
  cutOutput?: { bytes: number; path?: string };
  /** The terminal's line for the call. */
  display?: string;
  /** The tool ended the run (task_complete). */
  final?: boolean;
  /** The conversation state after the call; absent: unchanged. */
  state?: Record<string, unknown>;
  /** Images the tool showed the model, unchecked (callResult checks and hashes them). */
  images?: { data: Uint8Array; name?: string }[];
}

/** The end of a call aborted before its worker got it. */
export const CANCELLED_BEFORE_START: CallEnd = {
  errorType: "cancelled",
  message: "Cancelled before it started",
};

/**
 * The worker's reply, or why the host stops waiting for it: the call's time is up, or the
 * user aborted.
 *
 * @param reply The worker's answer to the call.
 * @param timeoutMs The call's time limit.
 * @param signal Aborted when the user interrupts.
 * @returns The reply, `"timeout"` or `"cancelled"`.
 *
 * @example
 * ```ts
 * import { replyOrStop } from "./call_end.ts";
 * const never = new Promise<never>(() => {});
 * if (await replyOrStop(never, 10) !== "timeout") throw new Error();
 * ```
 */
export async function replyOrStop(
  reply: Promise<Reply>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Reply | "timeout" | "cancelled"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<"timeout" | "cancelled">((settle) => {
    timer = setTimeout(() => settle("timeout"), timeoutMs);
    onAbort = () => settle("cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([reply, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * What a promise resolves to within `ms`, else undefined (the grace a stopped tool has to
 * answer).
 *
 * @example
 * ```ts
 * import { within } from "./call_end.ts";
 * if (await within(Promise.resolve(1), 10) !== 1) throw new Error();
 * if (await within(new Promise(() => {}), 10) !== undefined) throw new Error();
 * ```
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((
    settle,
  ) => (timer = setTimeout(() => settle(undefined), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The end of a call the worker answered: its output, the error it threw, or its crash.
 *
 * @example
 * ```ts
 * import { replyEnd } from "./call_end.ts";
 * const end = replyEnd("ls", { type: "lost", reason: "out of memory" });
 * if (end.errorType !== "internal_error" || !end.message?.includes("restarted")) throw new Error();
 * ```
 */
export function replyEnd(name: string, reply: Reply): CallEnd {
  switch (reply.type) {
    case "done":
      return {
        data: reply.output,
        ...(reply.outputBytes === undefined ? {} : { outputBytes: reply.outputBytes }),
        ...(reply.cutOutput === undefined ? {} : { cutOutput: reply.cutOutput }),
        state: reply.state,
        ...(reply.display === undefined ? {} : { display: reply.display }),
        ...(reply.final ? { final: true } : {}),
        ...(reply.images ? { images: reply.images } : {}),
      };
    case "failed":
      return {
        errorType: reply.errorType,
        message: reply.message,
        ...(reply.state ? { state: reply.state } : {}),
      };
    case "lost":
      return {
        errorType: "internal_error",
        message: `Tool "${name}" crashed: ${reply.reason}. Its sandbox was restarted`,
      };
    default:
      return { errorType: "internal_error", message: `Unexpected reply "${reply.type}"` };
  }
}

/**
 * The end of a call the host stopped: its time was up, or the user aborted it. A tool that
 * still answered within the grace period keeps the state it reported.
 *
 * @example
 * ```ts
 * import { stoppedEnd } from "./call_end.ts";
 * const end = stoppedEnd("grep", { why: "timeout", timeoutMs: 2000, late: undefined });
 * if (end.errorType !== "timeout" || !end.message?.includes("within 2 s")) throw new Error();
 * ```
 */
export function stoppedEnd(
  name: string,
  stopped: { why: "timeout" | "cancelled"; timeoutMs: number; late: Reply | undefined },
): CallEnd {
  const { late } = stopped;
  const state = late && "state" in late && late.state ? { state: late.state } : {};
  if (stopped.why === "cancelled") {
    return { errorType: "cancelled", message: "Cancelled by the user", ...state };
  }
  return {
    errorType: "timeout",
    message: `Tool "${name}" did not finish within ${stopped.timeoutMs / 1000} s and was ` +
      "stopped: try a smaller request",
    ...state,
  };
}

/**
 * The ToolRun of a call's end: the structured result, timed since `started`, its output cut
 * to the limits (the full output saved under `dataDir` when the context limit cuts it; a tool
 * that cut its own output, run_command, has its file named only when it is one of the saved
 * outputs under `dataDir`), the
 * state, display and final flag the tool reported, and its images (checked by their first
 * bytes and hashed here; one that is not an image is left out with a note in the output).
 *
 * @param name The tool.
 * @param end How the call ended.
 * @param call When it started, the state before it, and the host's output limits.
 * @returns The run for the loop.
 *
 * @example
 * ```ts
 * import { callResult } from "./call_end.ts";
 * const run = await callResult("ls", { data: "a.ts" }, { started: performance.now(), state: {}, limits: {} });
 * if (!run.result.success || run.result.data !== "a.ts") throw new Error();
 * ```
 */
export async function callResult(
  name: string,
  end: CallEnd,
  call: {
    started: number;
    state: Record<string, unknown>;
    limits: { dataDir?: string; maxOutputSize?: number; toolOutputLimit?: number };
  },
): Promise<ToolRun> {
  const { limits } = call;
  const { images, problems } = await checkedImages(end.images ?? []);
  const data = end.data !== undefined && problems.length > 0
    ? `${end.data}\n[${problems.join("; ")}]`
    : end.data;
  const result = makeToolResult({
    executionTimeMs: performance.now() - call.started,
    ...(data === undefined ? {} : { data }),
    ...(end.errorType === undefined ? {} : { errorType: end.errorType }),
    ...(end.message === undefined ? {} : { errorMessage: end.message }),
  });
  const truncated = await truncateToolResult(result, {
    ...(limits.dataDir === undefined ? {} : { dataDir: limits.dataDir }),
    tool: name,
    ...(limits.maxOutputSize ? { maxOutputSize: limits.maxOutputSize } : {}),
    ...(limits.toolOutputLimit ? { toolOutputLimit: limits.toolOutputLimit } : {}),
    ...(end.outputBytes === undefined ? {} : { outputBytes: end.outputBytes }),
    ...(end.cutOutput === undefined ? {} : { toolCut: await toolCutOf(end.cutOutput, limits) }),
  });
  return {
    result: truncated,
    state: end.state ?? call.state,
    ...(end.display === undefined ? {} : { display: end.display }),
    ...(end.final ? { final: true } : {}),
    ...(images.length > 0 ? { images } : {}),
  };
}

/**
 * What a preview's reply says: the change, why there is none, or nothing (the tool has no
 * preview).
 *
 * @example
 * ```ts
 * import { previewOf } from "./call_end.ts";
 * const none = previewOf({ type: "previewed", id: 1, error: "no file" });
 * if (!none || !("error" in none) || none.error !== "no file") throw new Error();
 * if (previewOf({ type: "previewed", id: 1 }) !== undefined) throw new Error();
 * ```
 */
export function previewOf(reply: Reply): PreviewResult | undefined {
  if (reply.type === "previewed") {
    if (reply.change) return { change: reply.change };
    return reply.error === undefined ? undefined : { error: reply.error };
  }
  if (reply.type === "failed") return { error: reply.message };
  return { error: reply.type === "lost" ? reply.reason : "unexpected reply" };
}

/** A tool's own cut, naming its file only when it is one of the workspace's saved outputs. */
async function toolCutOf(
  cut: { bytes: number; path?: string },
  limits: { dataDir?: string },
): Promise<ToolCut> {
  const saved = cut.path === undefined || limits.dataDir === undefined
    ? undefined
    : await savedOutputFile(cut.path, limits.dataDir);
  return { bytes: cut.bytes, ...(saved ? { saved } : {}) };
}
