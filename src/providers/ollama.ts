// Ollama's native API: POST /api/chat with NDJSON streaming, /api/show for the model's
// context length and capabilities, /api/tags for the model list. This file and ollama/ are
// the only code that knows this wire format. It sends options.num_ctx so Ollama does not
// silently cut the prompt to its small default context. Never throws: failures become error
// turns or error Results.

import { type AgentError, ok, type Result } from "../errors.ts";
import type {
  AssistantTurn,
  ModelLister,
  ModelRequest,
  Provider,
  ProviderEvent,
  StopReason,
} from "./provider.ts";
import { type ChatStreamEnd, readChatStream } from "./ollama/chat_stream.ts";
import {
  errorText,
  httpError,
  isAbort,
  noToolsError,
  SERVER_FAILED_HINT,
  unreachableError,
} from "./ollama/http_errors.ts";
import { type OllamaModelInfo, showModel } from "./ollama/show.ts";
import { ollamaApiJson, ollamaRoot } from "./ollama/api_json.ts";
import { toOllamaMessages } from "./ollama/wire_messages.ts";
import { DEFAULT_STREAM_LIMITS, StreamWatchdog } from "./stream_watchdog.ts";
import { countBytes } from "./received_bytes.ts";
import { isRecord } from "../platform/json_values.ts";
import { refusalNumbers } from "./context_refusal.ts";
import { httpRequest, type HttpResponse } from "./http_request.ts";
import { type ResponseBody, tapBody } from "./response_body.ts";

export type { OllamaModelInfo } from "./ollama/show.ts";
export { toOllamaMessages } from "./ollama/wire_messages.ts";

/** Upper bound for num_ctx when neither --num-ctx nor numCtx says otherwise. */
export const DEFAULT_MAX_NUM_CTX = 8192;

export interface OllamaOptions {
  /** Ollama's root URL, e.g. http://127.0.0.1:11434 (a trailing /v1 or /api is ignored). */
  baseUrl: string;
  model: string;
  /** Exact num_ctx to send; overrides the model's length and maxNumCtx. */
  numCtx?: number;
  /** Cap on num_ctx (the --num-ctx flag); default {@linkcode DEFAULT_MAX_NUM_CTX}. */
  maxNumCtx?: number;
  /** Sent as `think` when set: turn a thinking model's reasoning on or off. */
  think?: boolean;
  /** How long to wait for the first chunk of an answer; default 10 minutes. */
  firstByteTimeoutMs?: number;
  /** How long the stream may stay silent once it has begun; default 2 minutes. */
  stallTimeoutMs?: number;
}

export interface OllamaProvider extends Provider, ModelLister {
  /** Asks /api/show for the model's context length and capabilities (cached). */
  inspect(signal?: AbortSignal): Promise<Result<OllamaModelInfo, AgentError>>;
  /** The num_ctx sent with each request (after inspect). */
  numCtx(): Promise<number>;
}

/**
 * Creates a provider for Ollama's native API.
 *
 * num_ctx: `numCtx` when given; otherwise the model's context length from /api/show capped
 * by `maxNumCtx` (default {@linkcode DEFAULT_MAX_NUM_CTX}); `maxNumCtx` when /api/show does
 * not say.
 *
 * @param options Root URL, model and context settings.
 * @returns The provider; it also lists models and inspects the model.
 *
 * @example
 * ```ts
 * import { createOllamaProvider } from "./ollama.ts";
 * const ollama = createOllamaProvider({ baseUrl: "http://127.0.0.1:9", model: "qwen3" });
 * const turn = await ollama.complete({ messages: [], tools: [] });
 * if (turn.error?.kind !== "provider_unreachable") throw new Error();
 * ```
 */
export function createOllamaProvider(options: OllamaOptions): OllamaProvider {
  const root = ollamaRoot(options.baseUrl);
  const model = options.model;
  const cap = options.maxNumCtx ?? DEFAULT_MAX_NUM_CTX;
  let inspected: Promise<Result<OllamaModelInfo, AgentError>> | undefined;

  function inspect(signal?: AbortSignal): Promise<Result<OllamaModelInfo, AgentError>> {
    if (!inspected) {
      inspected = showModel(root, model, { signal }).then((result) => {
        if (!result.ok) inspected = undefined; // try again next time
        return result;
      });
    }
    return inspected;
  }

  function numCtxFor(info: OllamaModelInfo | undefined): number {
    if (options.numCtx !== undefined) return options.numCtx;
    return info?.contextLength === undefined ? cap : Math.min(info.contextLength, cap);
  }

  async function complete(
    request: ModelRequest,
    onEvent?: (event: ProviderEvent) => void,
  ): Promise<AssistantTurn> {
    const turn: AssistantTurn = { text: "", reasoning: "", toolCalls: [], stopReason: "stop" };
    const fail = (error: AgentError): AssistantTurn => ({
      ...turn,
      toolCalls: [],
      stopReason: "error",
      error,
    });
    const aborted = (): AssistantTurn => ({ ...turn, toolCalls: [], stopReason: "aborted" });

    const info = await inspect(request.signal);
    if (request.signal?.aborted) return aborted();
    if (!info.ok) {
      // An old server may lack /api/show; anything else (unreachable, no such model) stops here.
      if (info.error.kind !== "provider_http" || info.error.status === 404) return fail(info.error);
    }
    const known = info.ok ? info.value : undefined;
    if (
      request.tools.length > 0 && known && known.capabilities.length > 0 &&
      !known.capabilities.includes("tools")
    ) {
      return fail(noToolsError(model));
    }
    const body = chatRequestBody(model, request, numCtxFor(known), options.think);

    using watchdog = new StreamWatchdog({
      firstByteTimeoutMs: options.firstByteTimeoutMs ?? DEFAULT_STREAM_LIMITS.firstByteTimeoutMs,
      stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_STREAM_LIMITS.stallTimeoutMs,
    }, {
      signal: request.signal,
      server: root,
      ...(onEvent
        ? { onWaiting: (elapsedMs: number) => onEvent({ type: "waiting", elapsedMs }) }
        : {}),
    });
    const stalled = () => {
      const error = watchdog.error(root);
      return error ? fail(error) : undefined;
    };
    let response: HttpResponse;
    try {
      response = await httpRequest(`${root}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: watchdog.signal,
      });
    } catch (error) {
      if (request.signal?.aborted) return aborted();
      return stalled() ??
        (isAbort(error, request.signal) ? aborted() : fail(unreachableError(root, error)));
    }
    const numCtx = body.options.num_ctx;
    if (!response.ok || !response.body) {
      const text = await errorText(response);
      const failed = fail(httpError(root, model, { status: response.status, text }));
      // Newer Ollama refuses a prompt longer than num_ctx instead of cutting it.
      if (!/context length|exceeds.*context|too long/i.test(text)) return failed;
      const numbers = refusalNumbers(undefined, text);
      return { ...failed, contextExceeded: { ...numbers, limit: numbers.limit ?? numCtx } };
    }

    let end: ChatStreamEnd;
    try {
      const received = (bytes: number) => onEvent?.({ type: "received", bytes });
      end = await readChatStream(
        watched(countBytes(response.body, received), watchdog),
        turn,
        onEvent,
      );
    } catch (error) {
      if (request.signal?.aborted) return aborted();
      const stall = stalled();
      if (stall) return stall;
      if (isAbort(error, request.signal)) return aborted();
      return fail({
        kind: "provider_stream",
        baseUrl: root,
        message: `the connection broke: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    return finishTurn(turn, end, { root, numCtx, aborted: request.signal?.aborted === true });
  }

  return {
    name: "ollama",
    model,
    complete,
    listModels: (signal?: AbortSignal) => listOllamaModels(root, model, signal),
    inspect,
    async numCtx() {
      const info = await inspect();
      return numCtxFor(info.ok ? info.value : undefined);
    },
  };
}

/** The /api/chat request body: the messages, tools, num_ctx and the think switch. */
function chatRequestBody(
  model: string,
  request: ModelRequest,
  numCtx: number,
  think: boolean | undefined,
) {
  return {
    model,
    messages: toOllamaMessages(request.messages),
    stream: true,
    options: {
      num_ctx: numCtx,
      ...(request.maxTokens === undefined ? {} : { num_predict: request.maxTokens }),
    },
    ...(request.tools.length > 0
      ? {
        tools: request.tools.map((tool) => ({
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: tool.parameters },
        })),
      }
      : {}),
    ...(think !== undefined ? { think } : {}),
  };
}

/** How a streamed reply that reached its end becomes a turn: errors, stop reason, usage. */
function finishTurn(
  turn: AssistantTurn,
  end: ChatStreamEnd,
  at: { root: string; numCtx: number; aborted: boolean },
): AssistantTurn {
  const { root, numCtx } = at;
  const fail = (error: AgentError): AssistantTurn => ({
    ...turn,
    toolCalls: [],
    stopReason: "error",
    error,
  });
  if (end.kind === "stream_error") {
    return fail({
      kind: "provider_stream",
      baseUrl: root,
      message: `the server reported: ${end.message}: ${SERVER_FAILED_HINT}`,
    });
  }
  if (at.aborted) return { ...turn, toolCalls: [], stopReason: "aborted" };
  if (end.doneReason === undefined) {
    return fail({
      kind: "provider_stream",
      baseUrl: root,
      message: "the stream ended before the reply was done",
    });
  }
  // Ollama says "stop" even when the turn ends in tool calls.
  const stopReason: StopReason = turn.toolCalls.length > 0
    ? "tool_calls"
    : end.doneReason === "length"
    ? "length"
    : "stop";
  // Older Ollama cuts a prompt longer than num_ctx from the front and says nothing; a prompt
  // that fills the whole window is that cut (harness fits requests well below it).
  const cut = end.usage !== undefined && end.usage.promptTokens >= numCtx * 0.98;
  return {
    ...turn,
    stopReason,
    ...(end.usage ? { usage: end.usage } : {}),
    // What it counted is at least the window: the prompt held more.
    ...(cut ? { contextExceeded: { limit: numCtx, promptTokens: end.usage!.promptTokens } } : {}),
  };
}

/** The models the server has (/api/tags). */
async function listOllamaModels(
  root: string,
  model: string,
  signal?: AbortSignal,
): Promise<Result<string[], AgentError>> {
  const answer = await ollamaApiJson(root, { path: "/api/tags", model, signal });
  if (!answer.ok) return answer;
  const body = answer.value;
  const models = isRecord(body) && Array.isArray(body.models) ? body.models : [];
  return ok(
    models.flatMap((m) =>
      isRecord(m) && typeof (m.name ?? m.model) === "string" ? [String(m.name ?? m.model)] : []
    ),
  );
}

/** The body, restarting the stall limit on every chunk, progress or not. */
function watched(body: ResponseBody, watchdog: StreamWatchdog): ResponseBody {
  return tapBody(body, () => watchdog.chunk());
}
