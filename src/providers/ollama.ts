// Ollama's native API: POST /api/chat with NDJSON streaming, /api/show for the model's
// context length and capabilities, /api/tags for the model list. The only file that knows
// this wire format. It sends options.num_ctx so Ollama does not silently cut the prompt to
// its small default context. Never throws: failures become error turns or error Results.

import { type AgentError, err, ok, type Result } from "../errors.ts";
import type { Message, ToolCall, Usage } from "../messages.ts";
import type {
  AssistantTurn,
  ModelLister,
  ModelRequest,
  Provider,
  ProviderEvent,
  StopReason,
} from "./provider.ts";

/** Upper bound for num_ctx when neither --num-ctx nor numCtx says otherwise. */
export const DEFAULT_MAX_NUM_CTX = 8192;

/** What /api/show says about the model. */
export interface OllamaModelInfo {
  /** The model's trained context length (`model_info["<arch>.context_length"]`). */
  contextLength?: number;
  /** For example ["completion", "tools", "thinking"]; empty when the server does not say. */
  capabilities: string[];
}

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
}

export interface OllamaProvider extends Provider, ModelLister {
  /** Asks /api/show for the model's context length and capabilities (cached). */
  inspect(signal?: AbortSignal): Promise<Result<OllamaModelInfo, AgentError>>;
  /** The num_ctx sent with each request (after inspect). */
  numCtx(): Promise<number>;
}

/**
 * Whether a base URL is Ollama's root, for choosing the native provider automatically. The
 * rule: the URL is on port 11434 and its path is empty or "/" (Ollama's OpenAI-compatible
 * API lives under /v1, which stays with the OpenAI provider).
 *
 * @example
 * ```ts
 * import { isOllamaRoot } from "./ollama.ts";
 * if (!isOllamaRoot("http://127.0.0.1:11434")) throw new Error();
 * if (isOllamaRoot("http://127.0.0.1:11434/v1")) throw new Error();
 * if (isOllamaRoot("http://127.0.0.1:8080")) throw new Error();
 * ```
 */
export function isOllamaRoot(baseUrl: string): boolean {
  try {
    const url = new URL(baseUrl);
    return url.port === "11434" && (url.pathname === "/" || url.pathname === "");
  } catch {
    return false;
  }
}

/** The root URL without a trailing slash, /v1 or /api. */
function rootOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/(v1|api)$/, "");
}

interface WireToolCall {
  id?: string;
  function: { name: string; arguments: Record<string, unknown> };
}

interface WireMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  tool_calls?: WireToolCall[];
  tool_name?: string;
  tool_call_id?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * Converts canonical messages to /api/chat messages: tool calls join the assistant message
 * before them (arguments as objects); results become role "tool" with `tool_name`.
 *
 * @example
 * ```ts
 * import { toOllamaMessages } from "./ollama.ts";
 * const wire = toOllamaMessages([
 *   { kind: "assistant", content: "", data: {} },
 *   { kind: "tool_call", content: "ls {}", data: { id: "c1", name: "ls", arguments: '{"a":1}' } },
 * ]);
 * if (wire[0]?.tool_calls?.[0]?.function.arguments.a !== 1) throw new Error();
 * ```
 */
export function toOllamaMessages(messages: readonly Message[]): WireMessage[] {
  const wire: WireMessage[] = [];
  for (const message of messages) {
    switch (message.kind) {
      case "system":
      case "user":
        wire.push({ role: message.kind, content: message.content });
        break;
      case "assistant":
        wire.push({ role: "assistant", content: message.content });
        break;
      case "tool_call": {
        let last = wire.at(-1);
        if (last?.role !== "assistant") {
          last = { role: "assistant", content: "" };
          wire.push(last);
        }
        (last.tool_calls ??= []).push({
          id: message.data.id,
          function: { name: message.data.name, arguments: argumentsObject(message.data.arguments) },
        });
        break;
      }
      case "tool_result":
        wire.push({
          role: "tool",
          content: message.content,
          tool_name: message.data.name,
          tool_call_id: message.data.callId,
        });
        break;
      default: {
        const never: never = message;
        throw new Error(`unhandled message ${JSON.stringify(never)}`);
      }
    }
  }
  return wire;
}

function unreachable(root: string, error: unknown): AgentError {
  // Deno puts the socket error in `cause`: "fetch failed" alone says nothing.
  const messages: string[] = [];
  for (let e: unknown = error; e !== undefined && messages.length < 4;) {
    messages.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  const text = messages.at(-1) ?? "unknown error";
  const all = messages.join(" ");
  const refused = /refused|os error 111|ECONNREFUSED/i.test(all);
  return {
    kind: "provider_unreachable",
    baseUrl: root,
    cause: `${
      refused ? "connection refused" : text
    }: start Ollama with "ollama serve" or pass --base-url`,
  };
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof DOMException && error.name === "AbortError");
}

async function errorText(response: Response): Promise<string> {
  const body = await response.text().catch(() => "");
  try {
    const parsed: unknown = JSON.parse(body);
    if (isObject(parsed) && typeof parsed.error === "string") return parsed.error;
  } catch {
    // not JSON: use the text
  }
  return body.trim() || response.statusText || "no detail";
}

function noToolsError(model: string): AgentError {
  return {
    kind: "usage",
    message: `Model "${model}" does not support tools: pick a model whose capabilities ` +
      `include "tools" (ollama show ${model})`,
  };
}

/** The error for a failed HTTP answer, with the fix for the common cases. */
function httpError(root: string, model: string, status: number, text: string): AgentError {
  if (/does not support tools/i.test(text)) return noToolsError(model);
  const notFound = status === 404 && /not found/i.test(text);
  return {
    kind: "provider_http",
    baseUrl: root,
    status,
    message: notFound
      ? `${text}: pull it with "ollama pull ${model}" or pick one from "ollama list"`
      : text,
  };
}

/** Reads NDJSON objects from a response body. */
async function* ndjson(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown | SyntaxError> {
  let buffer = "";
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line === "") continue;
      try {
        yield JSON.parse(line);
      } catch (error) {
        yield error as SyntaxError;
      }
    }
  }
  if (buffer.trim() !== "") {
    try {
      yield JSON.parse(buffer);
    } catch (error) {
      yield error as SyntaxError;
    }
  }
}

function randomId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
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
  const root = rootOf(options.baseUrl);
  const model = options.model;
  const cap = options.maxNumCtx ?? DEFAULT_MAX_NUM_CTX;
  let inspected: Promise<Result<OllamaModelInfo, AgentError>> | undefined;

  async function show(signal?: AbortSignal): Promise<Result<OllamaModelInfo, AgentError>> {
    let response: Response;
    try {
      response = await fetch(`${root}/api/show`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      return err(unreachable(root, error));
    }
    if (!response.ok) {
      return err(httpError(root, model, response.status, await errorText(response)));
    }
    const body: unknown = await response.json().catch(() => undefined);
    const info = isObject(body) && isObject(body.model_info) ? body.model_info : {};
    const arch = info["general.architecture"];
    const lengthKey = typeof arch === "string" && `${arch}.context_length` in info
      ? `${arch}.context_length`
      : Object.keys(info).find((key) => key.endsWith(".context_length"));
    const length = lengthKey === undefined ? undefined : info[lengthKey];
    const capabilities = isObject(body) && Array.isArray(body.capabilities)
      ? body.capabilities.filter((c): c is string => typeof c === "string")
      : [];
    return ok({
      ...(typeof length === "number" && length > 0 ? { contextLength: length } : {}),
      capabilities,
    });
  }

  function inspect(signal?: AbortSignal): Promise<Result<OllamaModelInfo, AgentError>> {
    if (!inspected) {
      inspected = show(signal).then((result) => {
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
    const body = {
      model,
      messages: toOllamaMessages(request.messages),
      stream: true,
      options: { num_ctx: numCtxFor(known) },
      ...(request.tools.length > 0
        ? {
          tools: request.tools.map((tool) => ({
            type: "function",
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.parameters,
            },
          })),
        }
        : {}),
      ...(options.think !== undefined ? { think: options.think } : {}),
    };

    let response: Response;
    try {
      response = await fetch(`${root}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      return isAbort(error, request.signal) ? aborted() : fail(unreachable(root, error));
    }
    if (!response.ok || !response.body) {
      return fail(httpError(root, model, response.status, await errorText(response)));
    }

    let doneReason: string | undefined;
    let usage: Usage | undefined;
    try {
      for await (const line of ndjson(response.body)) {
        if (line instanceof SyntaxError || !isObject(line)) {
          await response.body.cancel().catch(() => {});
          return fail({ kind: "provider_stream", baseUrl: root, message: "a line is not JSON" });
        }
        if (typeof line.error === "string") {
          return fail({ kind: "provider_stream", baseUrl: root, message: line.error });
        }
        const message = isObject(line.message) ? line.message : {};
        if (typeof message.thinking === "string" && message.thinking !== "") {
          turn.reasoning += message.thinking;
          onEvent?.({ type: "reasoning_delta", text: message.thinking });
        }
        if (typeof message.content === "string" && message.content !== "") {
          turn.text += message.content;
          onEvent?.({ type: "text_delta", text: message.content });
        }
        if (Array.isArray(message.tool_calls)) {
          for (const raw of message.tool_calls) {
            const call = readToolCall(raw);
            if (!call) continue;
            turn.toolCalls.push(call);
            onEvent?.({
              type: "tool_call_started",
              index: turn.toolCalls.length - 1,
              name: call.name,
            });
          }
        }
        if (line.done === true) {
          doneReason = typeof line.done_reason === "string" ? line.done_reason : "stop";
          const prompt = line.prompt_eval_count;
          const completion = line.eval_count;
          if (typeof prompt === "number" || typeof completion === "number") {
            usage = {
              promptTokens: typeof prompt === "number" ? prompt : 0,
              completionTokens: typeof completion === "number" ? completion : 0,
            };
          }
        }
      }
    } catch (error) {
      if (isAbort(error, request.signal)) return aborted();
      return fail({
        kind: "provider_stream",
        baseUrl: root,
        message: `the connection broke: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    if (request.signal?.aborted) return aborted();
    if (doneReason === undefined) {
      return fail({
        kind: "provider_stream",
        baseUrl: root,
        message: "the stream ended before the reply was done",
      });
    }
    // Ollama says "stop" even when the turn ends in tool calls.
    const stopReason: StopReason = turn.toolCalls.length > 0
      ? "tool_calls"
      : doneReason === "length"
      ? "length"
      : "stop";
    return { ...turn, stopReason, ...(usage ? { usage } : {}) };
  }

  async function listModels(signal?: AbortSignal): Promise<Result<string[], AgentError>> {
    let response: Response;
    try {
      response = await fetch(`${root}/api/tags`, signal ? { signal } : {});
    } catch (error) {
      return err(unreachable(root, error));
    }
    if (!response.ok) {
      return err(httpError(root, model, response.status, await errorText(response)));
    }
    const body: unknown = await response.json().catch(() => undefined);
    const models = isObject(body) && Array.isArray(body.models) ? body.models : [];
    return ok(
      models.flatMap((m) =>
        isObject(m) && typeof (m.name ?? m.model) === "string" ? [String(m.name ?? m.model)] : []
      ),
    );
  }

  return {
    name: "ollama",
    model,
    complete,
    listModels,
    inspect,
    async numCtx() {
      const info = await inspect();
      return numCtxFor(info.ok ? info.value : undefined);
    },
  };
}

/** One wire tool call to canonical: arguments object stringified, id generated if missing. */
function readToolCall(raw: unknown): ToolCall | undefined {
  if (!isObject(raw) || !isObject(raw.function)) return undefined;
  const name = raw.function.name;
  if (typeof name !== "string" || name === "") return undefined;
  const args = raw.function.arguments;
  const text = typeof args === "string" ? (args.trim() || "{}") : JSON.stringify(args ?? {});
  const id = typeof raw.id === "string" && raw.id !== "" ? raw.id : randomId();
  return { id, name, arguments: text };
}
