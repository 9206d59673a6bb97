// The OpenAI-compatible Chat Completions provider (Ollama, llama.cpp server, LM Studio, vLLM,
// OpenAI). It is the only module that knows the wire format: it turns canonical messages into
// `messages` / `tool_calls`, streams one turn through npm:openai and folds the chunks back into
// an AssistantTurn. It never throws for server or network failures: it returns an error turn.

import type OpenAI from "openai";
import type { AgentError, Result } from "../errors.ts";
import { err, ok } from "../errors.ts";
import type { Message, ToolCall, ToolSchema, Usage } from "../messages.ts";
import type {
  AssistantTurn,
  ModelLister,
  ModelRequest,
  Provider,
  ProviderEvent,
  StopReason,
} from "./provider.ts";

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
  /** How long to wait for the response headers of one request; default 10 minutes. */
  requestTimeoutMs?: number;
  /** Extra fields merged into every chat request, e.g. `{ temperature: 0.2 }`. */
  extraBody?: Record<string, unknown>;
}

type OpenAIModule = typeof import("openai");

type WireToolCall = {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
};
type WireAssistant = { role: "assistant"; content: string | null; tool_calls?: WireToolCall[] };
type WireMessage =
  | { role: "system" | "user"; content: string }
  | WireAssistant
  | { role: "tool"; tool_call_id: string; content: string };

interface ProviderState {
  options: OpenAICompatOptions;
  idMode: "native" | "short";
  shortIds: ShortIdMap;
  client: Promise<{ sdk: OpenAIModule; client: OpenAI }> | undefined;
}

const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
const LIST_MODELS_TIMEOUT_MS = 30 * 1000;

let sdkModule: Promise<OpenAIModule> | undefined;

/**
 * Creates a provider for any server that speaks OpenAI Chat Completions with streaming.
 * npm:openai is loaded on the first request, so startup does not pay for it. The client never
 * retries on its own (`maxRetries: 0`): a slow or failing local server is reported at once.
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
): Provider & ModelLister {
  const state: ProviderState = {
    options,
    idMode: options.toolCallIds ?? "native",
    shortIds: new ShortIdMap(),
    client: undefined,
  };
  return {
    name: "openai",
    model: options.model,
    complete: (request, onEvent) => complete(state, request, onEvent),
    listModels: (signal) => listModels(state, signal),
  };
}

function getClient(state: ProviderState): Promise<{ sdk: OpenAIModule; client: OpenAI }> {
  state.client ??= (async () => {
    const sdk = await (sdkModule ??= import("openai"));
    const client = new sdk.default({
      baseURL: state.options.baseUrl,
      // The SDK refuses to start without a key; local servers ignore the header.
      apiKey: state.options.apiKey || "no-key",
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: state.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      logLevel: "off",
    });
    return { sdk, client };
  })();
  // A failed import is retried on the next call instead of being cached.
  state.client.catch(() => state.client = undefined);
  return state.client;
}

async function complete(
  state: ProviderState,
  request: ModelRequest,
  onEvent?: (event: ProviderEvent) => void,
): Promise<AssistantTurn> {
  if (request.signal?.aborted) return endTurn("aborted", "", "");
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
  if (!messages.ok) return { turn: errorTurn(messages.error, "", ""), idsRejected: false };
  const accumulator = new TurnAccumulator(onEvent);
  const signal = request.signal;
  let sdk: OpenAIModule | undefined;
  try {
    const loaded = await getClient(state);
    sdk = loaded.sdk;
    const body = {
      stream_options: { include_usage: true },
      ...(request.tools.length > 0 ? { tools: request.tools.map(toWireTool) } : {}),
      ...state.options.extraBody,
      model: state.options.model,
      messages: messages.value,
      stream: true,
    };
    const stream = await loaded.client.chat.completions.create(
      body as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming,
      signal ? { signal } : {},
    );
    for await (const chunk of stream as AsyncIterable<unknown>) accumulator.add(chunk);
  } catch (error) {
    if (signal?.aborted) return { turn: accumulator.abortedTurn(), idsRejected: false };
    const described = describeError(error, sdk, state);
    const turn = errorTurn(described.error, accumulator.text, accumulator.reasoning);
    return { turn, idsRejected: described.idsRejected };
  }
  // npm:openai ends the iteration quietly when the request was aborted.
  if (signal?.aborted) return { turn: accumulator.abortedTurn(), idsRejected: false };
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
  let sdk: OpenAIModule | undefined;
  try {
    const loaded = await getClient(state);
    sdk = loaded.sdk;
    const page = await loaded.client.models.list({
      timeout: Math.min(LIST_MODELS_TIMEOUT_MS, state.options.requestTimeoutMs ?? Infinity),
      ...(signal ? { signal } : {}),
    });
    const data: unknown = page.data;
    const ids = Array.isArray(data)
      ? data.flatMap((m: unknown) => isRecord(m) && typeof m.id === "string" ? [m.id] : [])
      : [];
    return ok(ids);
  } catch (error) {
    return err(describeError(error, sdk, state).error);
  }
}

// ---------------------------------------------------------------------------------------------
// Canonical -> wire

function toWireTool(tool: ToolSchema): Record<string, unknown> {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

/**
 * Converts canonical messages to wire messages. An assistant message and the tool_call
 * messages after it become one assistant message with `tool_calls`. Reasoning is never sent.
 * The wire must answer every tool call with exactly one `tool` message right after its
 * assistant message; a conversation that breaks this is a harness bug, so it is reported as
 * an error turn instead of being patched with invented results.
 */
function toWireMessages(
  messages: readonly Message[],
  wireId: (id: string) => string,
): Result<WireMessage[], AgentError> {
  const out: WireMessage[] = [];
  const seen = new Set<string>();
  let block: { assistant: WireAssistant; ids: string[]; answered: Set<string> } | undefined;
  let resultsStarted = false;
  const closeBlock = (): string | undefined => {
    const missing = block?.ids.find((id) => !block?.answered.has(id));
    block = undefined;
    return missing === undefined ? undefined : `tool call "${missing}" has no result`;
  };
  const startBlock = (content: string): WireAssistant => {
    const assistant: WireAssistant = { role: "assistant", content };
    block = { assistant, ids: [], answered: new Set() };
    resultsStarted = false;
    out.push(assistant);
    return assistant;
  };
  for (const message of messages) {
    let problem: string | undefined;
    switch (message.kind) {
      case "system":
      case "user":
        problem = closeBlock();
        out.push({ role: message.kind, content: message.content });
        break;
      case "assistant":
        problem = closeBlock();
        startBlock(message.content);
        break;
      case "tool_call": {
        if (block === undefined || resultsStarted) problem = closeBlock();
        const assistant = block?.assistant ?? startBlock("");
        const { id, name, arguments: args } = message.data;
        if (seen.has(id)) problem ??= `tool call id "${id}" is used twice`;
        seen.add(id);
        block?.ids.push(id);
        (assistant.tool_calls ??= []).push({
          id: wireId(id),
          type: "function",
          function: { name, arguments: wireArguments(args) },
        });
        break;
      }
      case "tool_result": {
        const { callId } = message.data;
        if (block === undefined || !block.ids.includes(callId)) {
          problem = `tool result "${callId}" answers no tool call right before it`;
        } else if (block.answered.has(callId)) {
          problem = `tool call "${callId}" has two results`;
        }
        block?.answered.add(callId);
        resultsStarted = true;
        out.push({ role: "tool", tool_call_id: wireId(callId), content: message.content });
        break;
      }
      default: {
        const never: never = message;
        throw new Error(`unhandled message ${JSON.stringify(never)}`);
      }
    }
    if (problem) return err(conversationBug(problem));
  }
  const problem = closeBlock();
  if (problem) return err(conversationBug(problem));
  for (const message of out) {
    if (message.role === "assistant" && message.tool_calls && message.content === "") {
      message.content = null;
    }
  }
  return ok(out);
}

function conversationBug(problem: string): AgentError {
  return {
    kind: "usage",
    message: `Cannot send the conversation to the model: ${problem}: ` +
      "this is a harness bug, please report it",
  };
}

/**
 * Arguments go back as the model sent them when they are JSON. llama.cpp and Ollama parse them
 * while applying the chat template and reject the whole request when they cannot, so text that
 * is not JSON is sent as "{}" (the tool result already told the model what was wrong).
 */
function wireArguments(args: string): string {
  if (args.trim() === "") return "{}";
  try {
    JSON.parse(args);
    return args;
  } catch {
    return "{}";
  }
}

// ---------------------------------------------------------------------------------------------
// Wire -> canonical

interface PartialCall {
  index: number;
  ordinal: number;
  wireId: string | undefined;
  name: string;
  args: string;
  announced: boolean;
}

/** Folds stream chunks into one turn; tolerant of what real servers send. */
class TurnAccumulator {
  text = "";
  reasoning = "";
  #finishReason: string | undefined;
  #usage: Usage | undefined;
  #calls: PartialCall[] = [];
  #byIndex = new Map<number, PartialCall>();
  #onEvent: ((event: ProviderEvent) => void) | undefined;

  constructor(onEvent?: (event: ProviderEvent) => void) {
    this.#onEvent = onEvent;
  }

  add(chunk: unknown): void {
    if (!isRecord(chunk)) return;
    const usage = readUsage(chunk.usage);
    if (usage) this.#usage = usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) {
      if (!isRecord(choice)) continue;
      if (typeof choice.index === "number" && choice.index !== 0) continue;
      if (isRecord(choice.delta)) this.#addDelta(choice.delta);
      if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
        this.#finishReason = choice.finish_reason;
      }
    }
  }

  #addDelta(delta: Record<string, unknown>): void {
    const reasoning = nonEmptyString(delta.reasoning_content) ?? nonEmptyString(delta.reasoning);
    if (reasoning !== undefined) {
      this.reasoning += reasoning;
      this.#onEvent?.({ type: "reasoning_delta", text: reasoning });
    }
    const content = nonEmptyString(delta.content);
    if (content !== undefined) {
      this.text += content;
      this.#onEvent?.({ type: "text_delta", text: content });
    }
    if (!Array.isArray(delta.tool_calls)) return;
    for (const toolDelta of delta.tool_calls) {
      if (isRecord(toolDelta)) this.#addToolDelta(toolDelta);
    }
  }

  #addToolDelta(delta: Record<string, unknown>): void {
    const fn = isRecord(delta.function) ? delta.function : {};
    const id = nonEmptyString(delta.id);
    const name = nonEmptyString(fn.name);
    const last = this.#calls.at(-1);
    // Servers that omit `index` send one call after another; a new id starts the next one.
    const index = typeof delta.index === "number"
      ? delta.index
      : last === undefined
      ? 0
      : id !== undefined && last.wireId !== undefined && id !== last.wireId
      ? Math.max(...this.#byIndex.keys()) + 1
      : last.index;
    let call = this.#byIndex.get(index);
    const startsNew = call === undefined ||
      (id !== undefined && call.wireId !== undefined && id !== call.wireId) ||
      (name !== undefined && call.name !== "" && name !== call.name && isJson(call.args));
    if (call === undefined || startsNew) {
      call = {
        index,
        ordinal: this.#calls.length,
        wireId: id,
        name: "",
        args: "",
        announced: false,
      };
      this.#calls.push(call);
      this.#byIndex.set(index, call);
    }
    call.wireId ??= id;
    if (call.name === "" && name !== undefined) call.name = name;
    const args = fn.arguments;
    if (typeof args === "string") {
      // Some servers repeat the whole arguments in the finish chunk.
      if (!(args === call.args && isJson(args))) call.args += args;
    } else if (typeof args === "object" && args !== null) {
      call.args = JSON.stringify(args);
    }
    if (!call.announced && call.name !== "") {
      call.announced = true;
      this.#onEvent?.({ type: "tool_call_started", index: call.ordinal, name: call.name });
    }
  }

  abortedTurn(): AssistantTurn {
    return endTurn("aborted", this.text, this.reasoning, this.#usage);
  }

  finish(baseUrl: string, usedIds: Set<string>): AssistantTurn {
    if (this.#finishReason === undefined) {
      const error: AgentError = {
        kind: "provider_stream",
        baseUrl,
        message: "the stream ended before a finish_reason: the server may have crashed, " +
          "check its log and try again",
      };
      return errorTurn(error, this.text, this.reasoning);
    }
    const calls = this.#calls.filter((call) => call.name !== "" || call.args !== "");
    // A turn cut by the token limit may hold a half-written call; it is never run.
    const stopReason: StopReason = this.#finishReason === "length"
      ? "length"
      : calls.length > 0
      ? "tool_calls"
      : "stop";
    const toolCalls: ToolCall[] = stopReason === "tool_calls"
      ? calls.map((call) => {
        let id = call.wireId ?? generateCallId();
        // Some servers number calls per response ("call_0"), which repeats across turns.
        if (usedIds.has(id)) id = generateCallId();
        usedIds.add(id);
        return { id, name: call.name, arguments: call.args.trim() === "" ? "{}" : call.args };
      })
      : [];
    return { ...endTurn(stopReason, this.text, this.reasoning, this.#usage), toolCalls };
  }
}

function readUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const prompt = value.prompt_tokens;
  const completion = value.completion_tokens;
  if (typeof prompt !== "number" && typeof completion !== "number") return undefined;
  return {
    promptTokens: typeof prompt === "number" ? prompt : 0,
    completionTokens: typeof completion === "number" ? completion : 0,
  };
}

function endTurn(
  stopReason: StopReason,
  text: string,
  reasoning: string,
  usage?: Usage,
): AssistantTurn {
  return { text, reasoning, toolCalls: [], stopReason, ...(usage ? { usage } : {}) };
}

function errorTurn(error: AgentError, text: string, reasoning: string): AssistantTurn {
  return { ...endTurn("error", text, reasoning), error };
}

// ---------------------------------------------------------------------------------------------
// Errors for users

function describeError(
  error: unknown,
  sdk: OpenAIModule | undefined,
  state: ProviderState,
): { error: AgentError; idsRejected: boolean } {
  const { baseUrl, model } = state.options;
  const timeoutMs = state.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (sdk === undefined) {
    const cause = `cannot load npm:openai: ${errorText(error)}`;
    return { error: { kind: "provider_unreachable", baseUrl, cause }, idsRejected: false };
  }
  if (error instanceof sdk.APIConnectionTimeoutError) {
    const within = timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`;
    const cause = `no response within ${within}: the server may still ` +
      "be loading the model, try again or raise the request timeout";
    return { error: { kind: "provider_unreachable", baseUrl, cause }, idsRejected: false };
  }
  if (error instanceof sdk.APIConnectionError) {
    const cause = connectionCause(error.cause ?? error, baseUrl);
    return { error: { kind: "provider_unreachable", baseUrl, cause }, idsRejected: false };
  }
  if (error instanceof sdk.APIError) {
    const message = serverMessage(error.error) ??
      clean(error.message.replace(/^\d{3} /, "")) ??
      "no error message in the response";
    if (error.status === undefined) {
      // An `{"error": ...}` frame inside a 200 stream; llama.cpp puts the HTTP status in `code`.
      const code: unknown = isRecord(error.error) ? error.error.code : undefined;
      const status = typeof code === "number" && code >= 400 && code < 600 ? code : undefined;
      const withHint = addHint(message, status ?? 0, model);
      return {
        error: status === undefined
          ? { kind: "provider_stream", baseUrl, message: `the server reported: ${withHint}` }
          : { kind: "provider_http", baseUrl, status, message: withHint },
        idsRejected: false,
      };
    }
    const idsRejected = error.status === 400 && /tool[ _-]?call[ _-]?id|length of 9/i.test(message);
    return {
      error: {
        kind: "provider_http",
        baseUrl,
        status: error.status,
        message: addHint(message, error.status, model),
      },
      idsRejected,
    };
  }
  if (error instanceof SyntaxError) {
    const message = `malformed JSON in an event: ${errorText(error)}`;
    return { error: { kind: "provider_stream", baseUrl, message }, idsRejected: false };
  }
  const message = `the connection closed mid-stream: ${errorText(error)}`;
  return { error: { kind: "provider_stream", baseUrl, message }, idsRejected: false };
}

function connectionCause(cause: unknown, baseUrl: string): string {
  const text = errorText(cause) + (isRecord(cause) ? ` ${errorText(cause.cause)}` : "");
  if (/refused|ECONNREFUSED/i.test(text)) {
    const start = /:11434\b/.test(baseUrl)
      ? `start Ollama with "ollama serve"`
      : "start the model server";
    return `connection refused: ${start} or pass --base-url`;
  }
  if (/dns|lookup|getaddrinfo|name or service not known|nodename/i.test(text)) {
    return "host not found: check the host name in --base-url";
  }
  if (/certificate|tls|ssl/i.test(text)) return `TLS failed: ${text.trim()}`;
  return `connection failed: ${text.trim() || "no detail"}: check --base-url`;
}

/** Finds the server's own words in an error body (OpenAI, Ollama, vLLM, FastAPI, llama.cpp). */
function serverMessage(body: unknown): string | undefined {
  if (typeof body === "string") return clean(body);
  if (Array.isArray(body)) {
    const parts = body.map((item) => serverMessage(item)).filter((s) => s !== undefined);
    return parts.length > 0 ? parts.join("; ") : undefined;
  }
  if (!isRecord(body)) return undefined;
  for (const key of ["message", "error", "detail", "msg"]) {
    const found = serverMessage(body[key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

function addHint(message: string, status: number, model: string): string {
  let hint: string | undefined;
  if (status === 401 || status === 403) {
    hint = "pass --api-key or set HARNESS_API_KEY";
  } else if (/model/i.test(message) && /not found|does not exist|no such|unknown/i.test(message)) {
    hint = `check the model name "${model}" or pick another with --model` +
      ` (for Ollama: "ollama pull ${model}")`;
  } else if (/tools?.*(not supported|unsupported)|does not support tools|--jinja/i.test(message)) {
    hint = "use a model or chat template that supports tool calling";
  } else if (/context|too long|maximum.*tokens|n_ctx|exceeds/i.test(message)) {
    hint = "start a new session or raise the server's context size";
  } else if (status === 404) {
    hint = "check --base-url (it usually ends with /v1)";
  }
  return hint ? `${message}: ${hint}` : message;
}

function clean(text: string): string | undefined {
  const flat = text.replace(/\s+/g, " ").trim().replace(/\.$/, "");
  if (flat === "") return undefined;
  return flat.length > 300 ? `${flat.slice(0, 300)}...` : flat;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? "" : String(error);
}

// ---------------------------------------------------------------------------------------------
// Small helpers

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function generateCallId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `call_${Array.from(bytes, (b) => ALPHANUMERIC[b % 62]).join("")}`;
}

/**
 * Maps canonical tool-call ids to stable 9-character [A-Za-z0-9] wire ids. The same id always
 * maps to the same wire id (a hash, so a resumed session maps alike); a collision is resolved by
 * rehashing. An id that is already 9 alphanumerics is sent as it is.
 */
class ShortIdMap {
  #toWire = new Map<string, string>();
  #owner = new Map<string, string>();

  wireId(id: string): string {
    const known = this.#toWire.get(id);
    if (known !== undefined) return known;
    let candidate = /^[A-Za-z0-9]{9}$/.test(id) ? id : shortHash(id);
    for (let salt = 1; this.#owner.has(candidate); salt++) {
      candidate = shortHash(`${id}#${salt}`);
    }
    this.#toWire.set(id, candidate);
    this.#owner.set(candidate, id);
    return candidate;
  }
}

/** 53-bit string hash (cyrb53) written as 9 base-62 digits. */
function shortHash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  let value = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  let out = "";
  for (let i = 0; i < 9; i++) {
    out = ALPHANUMERIC[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}
