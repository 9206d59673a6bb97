// The Anthropic Messages API provider (api.anthropic.com, and llama.cpp's llama-server, which
// serves the same API at /v1/messages). With its parts in anthropic/, the only code that knows
// this wire format: hand-written fetch and SSE parsing (no SDK to load at start-up). Never
// throws: failures become error turns or error Results.

import { type AgentError, err, ok, type Result } from "../errors.ts";
import type {
  AssistantTurn,
  ModelLister,
  ModelRequest,
  Provider,
  ProviderEvent,
  StopReason,
} from "./provider.ts";
import { ANTHROPIC_HOST, anthropicEndpoints } from "./anthropic/base_url.ts";
import { errorHint, httpFailure, isAbort, unreachableError } from "./anthropic/http_errors.ts";
import { type MessageStreamEnd, readMessageStream } from "./anthropic/stream_reader.ts";
import { toAnthropicMessages, toAnthropicTool } from "./anthropic/wire_messages.ts";
import { countBytes } from "./received_bytes.ts";
import { httpRequest, type HttpResponse } from "./http_request.ts";

export { isAnthropicBaseUrl } from "./anthropic/base_url.ts";

/** The API version every request names. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** Default `max_tokens` (the API requires one). */
export const DEFAULT_MAX_TOKENS = 8192;

/** Options of {@linkcode createAnthropicProvider}. */
export interface AnthropicOptions {
  /** The server's root, `.../v1` or `.../v1/messages`. */
  baseUrl: string;
  model: string;
  /** Sent as `x-api-key`; local servers usually need none. */
  apiKey?: string;
  /** `max_tokens` of each request; default {@linkcode DEFAULT_MAX_TOKENS}. */
  maxTokens?: number;
}

/** The Anthropic provider; it also lists models and reads llama-server's context size. */
export interface AnthropicProvider extends Provider, ModelLister {
  /** llama-server's context size from `/props`; undefined for other servers. */
  contextLength(signal?: AbortSignal): Promise<number | undefined>;
}

/**
 * Creates a provider for the Messages API with streaming.
 *
 * @param options Endpoint, model, key and output limit.
 * @returns The provider; `complete()` never throws.
 *
 * @example
 * ```ts
 * import { createAnthropicProvider } from "./anthropic.ts";
 * const provider = createAnthropicProvider({ baseUrl: "http://127.0.0.1:9/v1/messages", model: "m" });
 * const turn = await provider.complete({ messages: [{ kind: "user", content: "hi" }], tools: [] });
 * if (turn.stopReason !== "error" || turn.error?.kind !== "provider_unreachable") throw new Error();
 * ```
 */
export function createAnthropicProvider(options: AnthropicOptions): AnthropicProvider {
  const endpoints = anthropicEndpoints(options.baseUrl);
  const server: AnthropicServer = {
    endpoints,
    root: endpoints.root,
    model: options.model,
    headers: {
      "content-type": "application/json",
      "anthropic-version": ANTHROPIC_VERSION,
      ...(options.apiKey ? { "x-api-key": options.apiKey } : {}),
    },
  };
  return {
    name: "anthropic",
    model: server.model,
    complete: (request, onEvent) =>
      completeMessage(
        server,
        request.maxTokens ?? options.maxTokens ?? DEFAULT_MAX_TOKENS,
        request,
        onEvent,
      ),
    listModels: (signal) => listAnthropicModels(server, signal),
    contextLength: (signal) => readContextLength(server, signal),
  };
}

/** Where and how to reach the server: what every request of one provider shares. */
interface AnthropicServer {
  endpoints: ReturnType<typeof anthropicEndpoints>;
  /** The server's root, named in errors. */
  root: string;
  model: string;
  headers: Record<string, string>;
}

/** One streamed `POST /messages`: the request, the stream, then the finished turn. */
async function completeMessage(
  server: AnthropicServer,
  maxTokens: number,
  request: ModelRequest,
  onEvent?: (event: ProviderEvent) => void,
): Promise<AssistantTurn> {
  const { root, model } = server;
  const turn: AssistantTurn = { text: "", reasoning: "", toolCalls: [], stopReason: "stop" };
  // What streamed before a failure is kept for display; tool calls and signatures are not.
  const fail = (error: AgentError): AssistantTurn => ({
    text: turn.text,
    reasoning: turn.reasoning,
    toolCalls: [],
    stopReason: "error",
    error,
  });
  const aborted = (): AssistantTurn => ({
    text: turn.text,
    reasoning: turn.reasoning,
    toolCalls: [],
    stopReason: "aborted",
  });
  if (request.signal?.aborted) return aborted();
  const body = messagesRequestBody(request, model, maxTokens);
  let response: HttpResponse;
  try {
    response = await httpRequest(server.endpoints.messages, {
      method: "POST",
      headers: server.headers,
      body: JSON.stringify(body),
      ...(request.signal ? { signal: request.signal } : {}),
    });
  } catch (error) {
    return isAbort(error, request.signal) ? aborted() : fail(unreachableError(root, error));
  }
  if (!response.ok || !response.body) {
    const failure = await httpFailure(root, model, response);
    const failed = fail(failure.error);
    return failure.contextExceeded
      ? { ...failed, contextExceeded: failure.contextExceeded }
      : failed;
  }

  let end: MessageStreamEnd;
  try {
    const received = (bytes: number) => onEvent?.({ type: "received", bytes });
    end = await readMessageStream(countBytes(response.body, received), turn, onEvent);
  } catch (error) {
    if (isAbort(error, request.signal)) return aborted();
    return fail({
      kind: "provider_stream",
      baseUrl: root,
      message: `the connection broke: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  if (request.signal?.aborted) return aborted();
  const finished = finishedTurn(turn, end, model);
  return finished.ok
    ? finished.value
    : fail({ kind: "provider_stream", baseUrl: root, message: finished.error });
}

/** The JSON body of a streamed `POST /messages` for `request`. */
function messagesRequestBody(request: ModelRequest, model: string, maxTokens: number) {
  const { system, messages } = toAnthropicMessages(request.messages);
  return {
    model,
    max_tokens: maxTokens,
    ...(system !== "" ? { system } : {}),
    messages,
    ...(request.tools.length > 0 ? { tools: request.tools.map(toAnthropicTool) } : {}),
    stream: true,
  };
}

/**
 * The turn with its stop reason and usage once the stream ended without breaking, or what
 * went wrong (the server's error event, or no stop at all) as the `provider_stream` message.
 */
function finishedTurn(
  turn: AssistantTurn,
  end: MessageStreamEnd,
  model: string,
): Result<AssistantTurn, string> {
  if (end.kind === "stream_error") {
    const hint = errorHint(end.errorType, 0, { model, message: end.message });
    return err(
      `the server reported: ${end.message.replace(/\.$/, "")}${hint ? `: ${hint}` : ""}`,
    );
  }
  if (!end.stopped && end.stopReason === undefined) {
    return err("the stream ended before the reply was done");
  }
  const stopReason: StopReason = turn.toolCalls.length > 0
    ? "tool_calls"
    : end.stopReason === "max_tokens"
    ? "length"
    : "stop";
  return ok({ ...turn, stopReason, ...(end.usage ? { usage: end.usage } : {}) });
}

/** The model ids `GET /models` lists. */
async function listAnthropicModels(
  server: AnthropicServer,
  signal?: AbortSignal,
): Promise<Result<string[], AgentError>> {
  const { root, model } = server;
  let response: HttpResponse;
  try {
    response = await httpRequest(`${server.endpoints.models}?limit=100`, {
      headers: server.headers,
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    return err(unreachableError(root, error));
  }
  if (!response.ok) return err((await httpFailure(root, model, response)).error);
  const body: unknown = await response.json().catch(() => undefined);
  const data = typeof body === "object" && body !== null && "data" in body &&
      Array.isArray(body.data)
    ? body.data as unknown[]
    : [];
  return ok(
    data.flatMap((m) =>
      typeof m === "object" && m !== null && "id" in m && typeof m.id === "string" ? [m.id] : []
    ),
  );
}

/** llama-server's context size from `GET /props`; undefined for other servers or on failure. */
async function readContextLength(
  server: AnthropicServer,
  signal?: AbortSignal,
): Promise<number | undefined> {
  if (new URL(server.root).hostname === ANTHROPIC_HOST) return undefined;
  try {
    const response = await httpRequest(server.endpoints.props, {
      headers: server.headers,
      ...(signal ? { signal } : {}),
    });
    if (!response.ok) {
      await response.body.cancel();
      return undefined;
    }
    const body: unknown = await response.json();
    const settings = typeof body === "object" && body !== null &&
        "default_generation_settings" in body
      ? body.default_generation_settings
      : undefined;
    const nCtx = typeof settings === "object" && settings !== null && "n_ctx" in settings
      ? settings.n_ctx
      : undefined;
    return typeof nCtx === "number" && nCtx > 0 ? nCtx : undefined;
  } catch {
    return undefined;
  }
}
