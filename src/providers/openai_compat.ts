// The OpenAI-compatible Chat Completions provider (Ollama, llama.cpp server, LM Studio, vLLM,
// OpenAI). With its parts in openai_compat/, the only code that knows the wire format: it sends
// canonical messages as `messages` / `tool_calls`, streams one turn (chat_client.ts) and folds
// the chunks back into an AssistantTurn. It never throws for server or network failures.

import type { AgentError, Result } from "../errors.ts";
import { err, ok } from "../errors.ts";
import type {
  AssistantTurn,
  ModelLister,
  ModelRequest,
  Provider,
  ProviderEvent,
} from "./provider.ts";
import { ShortIdMap } from "./openai_compat/call_ids.ts";
import { describeError, type DescribeErrorOptions } from "./openai_compat/http_errors.ts";
import {
  type ChatEndpoint,
  fetchModelList,
  streamChatCompletion,
} from "./openai_compat/chat_client.ts";
import { isRecord } from "../platform/json_values.ts";
import { endTurn, errorTurn, TurnAccumulator } from "./openai_compat/stream_reader.ts";
import { toWireMessages, toWireTool } from "./openai_compat/wire_messages.ts";
import { countPromptTokens, type TokenizeWay } from "./openai_compat/count_tokens.ts";
import { DEFAULT_STREAM_LIMITS, type StreamLimits, StreamWatchdog } from "./stream_watchdog.ts";
import { slotRequestFields } from "./server_slots.ts";

/** Options of {@linkcode createOpenAICompatProvider}. */
export interface OpenAICompatOptions {
  /** Endpoint including the version path, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Model name sent with every request. */
  model: string;
  /** Bearer token; local servers usually need none. */
  apiKey?: string;
  /**
   * How tool-call ids look on the wire. "short" maps every id to 9 characters of
   * [A-Za-z0-9] (Mistral on vLLM). "native" (default) sends ids as they are and switches to
   * "short" for the rest of the session when the server rejects an id.
   */
  toolCallIds?: "native" | "short";
  /** How long to wait for the first chunk of an answer; default 10 minutes. */
  firstByteTimeoutMs?: number;
  /** How long the stream may stay silent once it has begun; default 2 minutes. */
  stallTimeoutMs?: number;
  /** Ask for prompt-processing progress (`return_progress`, llama-server only). */
  promptProgress?: boolean;
  /** Extra fields merged into every chat request, e.g. `{ temperature: 0.2 }`. */
  extraBody?: Record<string, unknown>;
}

/** What a provider's last model list answered, for whoever reads more of it than the ids. */
export interface ListedModels {
  /**
   * The entries of the last `listModels()` answer (`data`), or undefined before one: the window
   * probe reads vLLM's max_model_len from them instead of asking for the list again.
   */
  listedModels(): unknown[] | undefined;
}

interface ProviderState {
  options: OpenAICompatOptions;
  idMode: "native" | "short";
  shortIds: ShortIdMap;
  /** How this server counts a prompt's tokens, once known (count_tokens.ts). */
  tokenize: { way?: TokenizeWay };
  /** The entries of the last model list (its answer's `data`). */
  listed?: unknown[];
}

const LIST_MODELS_TIMEOUT_MS = 30 * 1000;

/**
 * Creates a provider for any server that speaks OpenAI Chat Completions with streaming. It
 * never retries on its own: a slow or failing local server is reported at once.
 *
 * @param options Endpoint, model and wire quirks.
 * @returns A provider whose `complete()` never throws and which can list the server's models.
 *
 * @example
 * ```ts
 * import { createOpenAICompatProvider } from "./openai_compat.ts";
 * const provider = createOpenAICompatProvider({
 *   baseUrl: "http://127.0.0.1:9/v1",
 *   model: "qwen3",
 * });
 * const turn = await provider.complete({ messages: [{ kind: "user", content: "hi" }], tools: [] });
 * if (turn.stopReason !== "error" || turn.error?.kind !== "provider_unreachable") {
 *   throw new Error(turn.stopReason);
 * }
 * ```
 */
export function createOpenAICompatProvider(
  options: OpenAICompatOptions,
): Provider & ModelLister & ListedModels {
  const state: ProviderState = {
    options,
    idMode: options.toolCallIds ?? "native",
    shortIds: new ShortIdMap(),
    tokenize: {},
  };
  return {
    name: "openai",
    model: options.model,
    listedModels: () => state.listed,
    complete: (request, onEvent) => complete(state, request, onEvent),
    countTokens: (request) => countTokens(state, request),
    listModels: (signal) => listModels(state, signal),
  };
}

/** The server's own count of a request's prompt (count_tokens.ts). */
function countTokens(state: ProviderState, request: ModelRequest): Promise<number | undefined> {
  const wireId = state.idMode === "short"
    ? (id: string) => state.shortIds.wireId(id)
    : (id: string) => id;
  const messages = toWireMessages(request.messages, wireId);
  if (!messages.ok) return Promise.resolve(undefined);
  const { baseUrl, model, apiKey } = state.options;
  return countPromptTokens(
    baseUrl,
    {
      model,
      messages: messages.value,
      ...(request.tools.length > 0 ? { tools: request.tools.map(toWireTool) } : {}),
    },
    state.tokenize,
    {
      ...(apiKey ? { apiKey } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    },
  );
}

async function complete(
  state: ProviderState,
  request: ModelRequest,
  onEvent?: (event: ProviderEvent) => void,
): Promise<AssistantTurn> {
  if (request.signal?.aborted) return endTurn("aborted", "", { reasoning: "" });
  const first = await attempt(state, request, onEvent);
  if (!first.idsRejected || state.idMode === "short") return first.turn;
  // vLLM with Mistral models rejects ids that are not 9 alphanumerics; it says so in a 400.
  state.idMode = "short";
  return (await attempt(state, request, onEvent)).turn;
}

async function attempt(
  state: ProviderState,
  request: ModelRequest,
  onEvent?: (event: ProviderEvent) => void,
): Promise<{ turn: AssistantTurn; idsRejected: boolean }> {
  const { baseUrl } = state.options;
  const wireId = state.idMode === "short"
    ? (id: string) => state.shortIds.wireId(id)
    : (id: string) => id;
  const messages = toWireMessages(request.messages, wireId);
  if (!messages.ok) {
    return { turn: errorTurn(messages.error, { text: "", reasoning: "" }), idsRejected: false };
  }
  const accumulator = new TurnAccumulator(onEvent);
  const signal = request.signal;
  using watchdog = new StreamWatchdog(limitsOf(state.options), {
    signal,
    server: baseUrl,
    ...(onEvent
      ? { onWaiting: (elapsedMs: number) => onEvent({ type: "waiting", elapsedMs }) }
      : {}),
  });
  const stalled = (): { turn: AssistantTurn; idsRejected: boolean } | undefined => {
    const error = watchdog.error(baseUrl);
    if (error === undefined) return undefined;
    const { text, reasoning } = accumulator;
    return { turn: errorTurn(error, { text, reasoning }), idsRejected: false };
  };
  const body = {
    stream_options: { include_usage: true },
    // llama-server sends one call per turn unless asked for more.
    ...(request.tools.length > 0
      ? { tools: request.tools.map(toWireTool), parallel_tool_calls: true }
      : {}),
    ...(state.options.promptProgress ? { return_progress: true } : {}),
    ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
    ...(request.slot === undefined ? {} : slotRequestFields(request.slot)),
    ...state.options.extraBody,
    model: state.options.model,
    messages: messages.value,
    stream: true,
  };
  const end = await streamChatCompletion(endpointOf(state), body, {
    signal: watchdog.signal,
    // The stream watchdog enforces the real limits; this only backs it up.
    timeoutMs: limitsOf(state.options).firstByteTimeoutMs + 5000,
    onChunk(chunk) {
      watchdog.chunk();
      const progress = promptProgress(chunk);
      if (progress) onEvent?.(progress);
      accumulator.add(chunk);
    },
    // Bytes are counted as they arrive, before a line is buffered (turn_output_cap.ts).
    ...(onEvent ? { onReceived: (bytes: number) => onEvent({ type: "received", bytes }) } : {}),
  });
  if (signal?.aborted) return { turn: accumulator.abortedTurn(), idsRejected: false };
  const stall = stalled();
  if (stall) return stall;
  if (end.kind === "failed") {
    const described = describeError(end.failure, errorOptions(state));
    const { text, reasoning } = accumulator;
    const turn = errorTurn(described.error, { text, reasoning });
    if (described.contextExceeded) turn.contextExceeded = described.contextExceeded;
    return { turn, idsRejected: described.idsRejected };
  }
  const usedIds = new Set<string>();
  for (const message of request.messages) {
    if (message.kind === "tool_call") usedIds.add(message.data.id);
  }
  return { turn: accumulator.finish(baseUrl, usedIds), idsRejected: false };
}

async function listModels(
  state: ProviderState,
  signal?: AbortSignal,
): Promise<Result<string[], AgentError>> {
  const listed = await fetchModelList(endpointOf(state), {
    timeoutMs: Math.min(LIST_MODELS_TIMEOUT_MS, limitsOf(state.options).firstByteTimeoutMs),
    ...(signal ? { signal } : {}),
  });
  if (!listed.ok) {
    if (listed.error !== "aborted") {
      return err(describeError(listed.error, errorOptions(state)).error);
    }
    const cause = "the request was interrupted";
    return err({ kind: "provider_unreachable", baseUrl: state.options.baseUrl, cause });
  }
  state.listed = listed.value;
  return ok(
    listed.value.flatMap((m: unknown) => isRecord(m) && typeof m.id === "string" ? [m.id] : []),
  );
}

function endpointOf(state: ProviderState): ChatEndpoint {
  const { baseUrl, apiKey } = state.options;
  return apiKey ? { baseUrl, apiKey } : { baseUrl };
}

function errorOptions(state: ProviderState): DescribeErrorOptions {
  const { baseUrl, model } = state.options;
  return { baseUrl, model, timeoutMs: limitsOf(state.options).firstByteTimeoutMs };
}

function limitsOf(options: OpenAICompatOptions): StreamLimits {
  return {
    firstByteTimeoutMs: options.firstByteTimeoutMs ?? DEFAULT_STREAM_LIMITS.firstByteTimeoutMs,
    stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_STREAM_LIMITS.stallTimeoutMs,
  };
}

/** llama-server's `prompt_progress` chunk (sent with `return_progress`), as an event. */
function promptProgress(chunk: unknown): ProviderEvent | undefined {
  const progress = isRecord(chunk) ? chunk.prompt_progress : undefined;
  if (!isRecord(progress)) return undefined;
  const { total, processed, time_ms: elapsedMs } = progress;
  if (typeof total !== "number" || typeof processed !== "number") return undefined;
  return {
    type: "prompt_progress",
    processed,
    total,
    elapsedMs: typeof elapsedMs === "number" ? elapsedMs : 0,
  };
}
