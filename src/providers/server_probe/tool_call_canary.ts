// The canary of `harness doctor`: one request offering one trivial tool and asking the model
// to call it. A structured call means the server parses the model's tool calls itself
// ("native"); a call harness finds in the answer's text (text_tool_calls.ts) means harness must
// recover them ("text"); neither means the model, or the server, does not make tool calls.

import { type AgentError, err, ok, type Result } from "../../errors.ts";
import type { ToolSchema } from "../../messages.ts";
import type { AssistantTurn, Provider } from "../provider.ts";
import { FORMAT_FAMILIES, type FormatFamily, parseTextToolCalls } from "../text_tool_calls.ts";

/** How the server and model make tool calls. */
export type ToolCallSupport = "native" | "text" | "none";

/** The one tool the canary offers. */
export const CANARY_TOOL: ToolSchema = {
  name: "get_current_time",
  description: "Returns the current date and time in a time zone.",
  parameters: {
    type: "object",
    properties: {
      timezone: { type: "string", description: "An IANA time zone such as UTC or Europe/Paris" },
    },
    required: ["timezone"],
  },
};

/** Tokens the model may write before it must have made the call (room for a short thought). */
export const CANARY_MAX_TOKENS = 512;

/** What the canary found. */
export interface CanaryResult {
  support: ToolCallSupport;
  /** For "text": the format family the call was written in. */
  format?: FormatFamily;
  /** The model stopped at the token limit without a call (it may think at length). */
  cut?: boolean;
}

/**
 * Tells how a turn answered the canary: a structured call, a call in its text (and in which
 * format family), or none. Reasoning never counts.
 *
 * @param turn The model's answer to the canary request.
 * @returns The support found.
 *
 * @example
 * ```ts
 * import { classifyCanary } from "./tool_call_canary.ts";
 * const text = '<tool_call>{"name": "get_current_time", "arguments": {"timezone": "UTC"}}</tool_call>';
 * const found = classifyCanary({ text, reasoning: "", toolCalls: [], stopReason: "stop" });
 * if (found.support !== "text" || found.format !== "hermes") throw new Error(JSON.stringify(found));
 * ```
 */
export function classifyCanary(turn: AssistantTurn): CanaryResult {
  if (turn.toolCalls.some((call) => call.name === CANARY_TOOL.name)) return { support: "native" };
  const tools = [CANARY_TOOL];
  if (parseTextToolCalls(turn.text, tools).calls.length > 0) {
    const format = FORMAT_FAMILIES.find((family) =>
      parseTextToolCalls(turn.text, tools, { families: [family] }).calls.length > 0
    );
    return { support: "text", ...(format === undefined ? {} : { format }) };
  }
  return { support: "none", ...(turn.stopReason === "length" ? { cut: true } : {}) };
}

/**
 * Sends the canary request and tells how tool calls come back. Give it the provider without
 * the text tool-call wrapper, so "native" and "text" can be told apart.
 *
 * @param provider The provider as opened, unwrapped.
 * @param options A nonce that starts the prompt (so no cached prefix is reused), the server
 *   (for errors) and an abort signal (a deadline).
 * @returns What the canary found, or the server's error.
 */
export async function probeToolCalls(
  provider: Provider,
  options: { nonce: string; baseUrl: string; signal?: AbortSignal },
): Promise<Result<CanaryResult, AgentError>> {
  const turn = await provider.complete({
    messages: [
      {
        kind: "system",
        content: `Check ${options.nonce}. You are a helpful assistant with tools. When the ` +
          "user asks for something a tool does, call the tool.",
      },
      { kind: "user", content: "What time is it in UTC? Call get_current_time to find out." },
    ],
    tools: [CANARY_TOOL],
    maxTokens: CANARY_MAX_TOKENS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (turn.stopReason === "error" || turn.stopReason === "aborted") {
    return err(turn.error ?? stopped(options.baseUrl));
  }
  return ok(classifyCanary(turn));
}

/**
 * The error of a probe request stopped before its end (the doctor's deadline).
 *
 * @param baseUrl The server asked.
 * @returns A `provider_stream` error saying so.
 *
 * @example
 * ```ts
 * import { stopped } from "./tool_call_canary.ts";
 * if (stopped("http://127.0.0.1:8080/v1").kind !== "provider_stream") throw new Error();
 * ```
 */
export function stopped(baseUrl: string): AgentError {
  return { kind: "provider_stream", baseUrl, message: "no complete answer in the time allowed" };
}
