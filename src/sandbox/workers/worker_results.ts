// How a sandbox worker turns what a tool did into its reply to the host: what it returned
// (checked, its images kept as bytes), what it threw (a ToolError's own kind, a sandbox
// refusal with the flag that would allow it, else an I/O or internal error), and its progress
// (rate-limited). tool_worker.ts posts the replies.

import type { ToolErrorType } from "../../messages.ts";
import { ToolError } from "../../tools/define_tool.ts";
import { shown } from "../../plugin_loader/plugin_definition.ts";
import { describeNotCapable } from "../grants/describe_not_capable.ts";
import type { Grants } from "../grants/grants.ts";
import type { WorkerToHost } from "./worker_protocol.ts";

const TOOL_ERROR_TYPES = new Set<string>([
  "not_found",
  "validation_failed",
  "permission_denied",
  "io_error",
  "parse_error",
  "timeout",
  "internal_error",
  "limit_reached",
  "cancelled",
  "interrupted",
]);

/**
 * The error kind and message of what a tool threw.
 *
 * @param error What was thrown.
 * @param tool The tool's name (for the flag a refusal names).
 * @param grants The run's grants, when the worker knows them.
 * @param planFolder Plan mode's folder, when the worker runs in plan mode.
 * @returns The kind and the message the model reads.
 *
 * @example
 * ```ts
 * import { classifyError } from "./worker_results.ts";
 * import { ToolError } from "../../tools/define_tool.ts";
 * const c = classifyError(new ToolError("not_found", "no such file"), "read_file");
 * if (c.errorType !== "not_found") throw new Error();
 * ```
 */
export function classifyError(
  error: unknown,
  tool: string,
  grants?: Grants,
  why: { planFolder?: string; narrowedFrom?: Grants } = {},
): { errorType: Exclude<ToolErrorType, "none">; message: string } {
  if (error instanceof ToolError || (error instanceof Error && error.name === "ToolError")) {
    const type = (error as { type?: unknown }).type;
    if (typeof type === "string" && TOOL_ERROR_TYPES.has(type)) {
      return { errorType: type as Exclude<ToolErrorType, "none">, message: error.message };
    }
  }
  if (!(error instanceof Error)) return { errorType: "internal_error", message: String(error) };
  // ctx.spawn refused to start a process unconfined (command_sandbox "required").
  if (error.name === "CommandRefused") {
    return { errorType: "permission_denied", message: error.message };
  }
  if (error instanceof Deno.errors.NotCapable || /^Requires \w+ access/.test(error.message)) {
    return {
      errorType: "permission_denied",
      message: grants ? describeNotCapable(error.message, { grants, tool, ...why }) : error.message,
    };
  }
  if (error instanceof Deno.errors.NotFound) {
    return { errorType: "not_found", message: error.message };
  }
  if (Object.values(Deno.errors).some((type) => error instanceof type)) {
    return { errorType: "io_error", message: error.message };
  }
  const name = error.name && error.name !== "Error" ? `${error.name}: ` : "";
  return { errorType: "internal_error", message: `${name}${error.message}` };
}

/**
 * The reply for what a tool's `run` returned: a string or `{ output, display?, final?,
 * images?, outputBytes? }`; anything else is an internal error naming what it was.
 *
 * @param returned The value.
 * @param call The call's id, the tool's name and the conversation state to send back.
 * @returns The "done" or "failed" reply.
 */
export function returnedReply(
  returned: unknown,
  call: { id: number; name: string; state: Record<string, unknown> },
): WorkerToHost {
  const { id, name, state } = call;
  const output = typeof returned === "string" ? { output: returned } : returned;
  if (
    typeof output !== "object" || output === null ||
    typeof (output as { output?: unknown }).output !== "string"
  ) {
    const message = `Tool "${name}" returned ${shown(returned)}: expected { output: string }`;
    return { type: "failed", id, errorType: "internal_error", message, state };
  }
  const { output: text, display, final, images, outputBytes, cutOutput } = output as {
    output: string;
    display?: unknown;
    final?: unknown;
    images?: unknown;
    outputBytes?: unknown;
    cutOutput?: unknown;
  };
  const pictures = imagesOf(images);
  const cut = cutOutputOf(cutOutput);
  return {
    type: "done",
    id,
    output: text,
    state,
    ...(typeof display === "string" ? { display } : {}),
    ...(final === true ? { final: true } : {}),
    ...(pictures.length > 0 ? { images: pictures } : {}),
    ...(Number.isSafeInteger(outputBytes) ? { outputBytes: outputBytes as number } : {}),
    ...(cut ? { cutOutput: cut } : {}),
  };
}

/** A tool's `cutOutput`, when its fields have their types (the host checks the path). */
function cutOutputOf(value: unknown): { bytes: number; path?: string } | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { bytes, path } = value as { bytes?: unknown; path?: unknown };
  if (!Number.isSafeInteger(bytes) || (bytes as number) < 0) return undefined;
  return { bytes: bytes as number, ...(typeof path === "string" ? { path } : {}) };
}

/** The images a tool returned, as bytes with a name; anything else in the list is dropped. */
function imagesOf(value: unknown): { data: Uint8Array; name?: string }[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    if (typeof item !== "object" || item === null) return [];
    const { data, name } = item as { data?: unknown; name?: unknown };
    if (!(data instanceof Uint8Array)) return [];
    return [{ data, ...(typeof name === "string" ? { name } : {}) }];
  });
}

/**
 * ctx.progress for one call: keeps the tail of what was reported and posts it at most every
 * 200 ms, so a chatty command costs a few messages a second, not one per chunk.
 *
 * @param send Posts the tail.
 * @returns What the tool calls with each piece of output.
 */
export function progressReporter(send: (text: string) => void): (text: string) => void {
  let tail = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (text: string) => {
    tail = (tail + text).slice(-400);
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      send(tail);
    }, 200);
  };
}
