// The real context window of an OpenAI-compatible server, read where each server states it:
// llama-server's /props (the slot's n_ctx, already split by -np), vLLM's /v1/models
// (max_model_len), LM Studio's /api/v0/models (loaded_context_length) and Ollama's /api/ps (the
// window the model is loaded with). The probes run in parallel with a short timeout each; the
// first that names a window wins, in that order. Never throws.

import { isRecord } from "../platform/json_values.ts";
import { fetchJson } from "./fetch_json.ts";

/** Which server answered; "unknown" when none of the endpoints did. */
export type ServerKind = "llama-server" | "vllm" | "lm-studio" | "ollama" | "unknown";

/** A window a server stated, with where it was read. */
export interface StatedWindow {
  /** Tokens of one request's context (prompt and answer). */
  tokens: number;
  server: ServerKind;
  /** Where it was read, for /context: `llama-server /props n_ctx (slot 1 of 4)`. */
  source: string;
  /** The model's chat template, when the server states it (llama-server /props). */
  chatTemplate?: string;
  /** Whether the model reads images, when the server says (/props modalities, LM Studio's type). */
  vision?: boolean;
}

/** Options of {@linkcode probeContextWindow}. */
export interface ProbeOptions {
  /** Per-endpoint timeout; default 3 s. */
  timeoutMs?: number;
  /** Bearer token, sent when given. */
  apiKey?: string;
  signal?: AbortSignal;
  /**
   * Handed llama-server's /props body (undefined when the server did not answer it): what
   * else it states (the slots) is read from it instead of asking again.
   */
  onProps?(body: unknown): void;
  /** The `/models` answer already fetched (the model list): read, not asked for again. */
  models?: unknown;
}

type JsonObject = Record<string, unknown>;

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Reads llama-server's /props body. `default_generation_settings.n_ctx` is one slot's window:
 * with `-c 16384 -np 4` it is 4096, which is what one request may use.
 *
 * @param body The parsed /props JSON.
 * @returns The window, or undefined when the body does not state one.
 *
 * @example
 * ```ts
 * import { readLlamaServerProps } from "./context_window.ts";
 * const w = readLlamaServerProps({ default_generation_settings: { n_ctx: 4096 }, total_slots: 4 });
 * if (w?.tokens !== 4096 || !w.source.includes("4 slots")) throw new Error(JSON.stringify(w));
 * ```
 */
export function readLlamaServerProps(body: unknown): StatedWindow | undefined {
  if (!isRecord(body)) return undefined;
  const settings = isRecord(body.default_generation_settings)
    ? body.default_generation_settings
    : {};
  const tokens = positive(settings.n_ctx) ?? positive(body.n_ctx);
  if (tokens === undefined) return undefined;
  const slots = positive(body.total_slots);
  const split = slots !== undefined && slots > 1 ? ` (per slot, ${slots} slots)` : "";
  const template = typeof body.chat_template === "string" && body.chat_template !== ""
    ? { chatTemplate: body.chat_template }
    : {};
  const vision = isRecord(body.modalities) && typeof body.modalities.vision === "boolean"
    ? { vision: body.modalities.vision }
    : {};
  return {
    tokens,
    server: "llama-server",
    source: `llama-server /props n_ctx${split}`,
    ...template,
    ...vision,
  };
}

/**
 * Reads vLLM's /v1/models body: `max_model_len` of the model in use (or of the only model).
 *
 * @example
 * ```ts
 * import { readVllmModels } from "./context_window.ts";
 * const w = readVllmModels({ data: [{ id: "q", max_model_len: 32768 }] }, "q");
 * if (w?.tokens !== 32768) throw new Error();
 * ```
 */
export function readVllmModels(body: unknown, model: string): StatedWindow | undefined {
  const entry = pickModel(body, model, (m) => m.id);
  const tokens = positive(entry?.max_model_len);
  return tokens === undefined
    ? undefined
    : { tokens, server: "vllm", source: "vLLM /v1/models max_model_len" };
}

/**
 * Reads LM Studio's /api/v0/models body: `loaded_context_length` of the loaded model in use.
 * A model that is not loaded has no window yet; its `max_context_length` is not what a
 * request gets.
 *
 * @example
 * ```ts
 * import { readLmStudioModels } from "./context_window.ts";
 * const body = { data: [{ id: "q", state: "loaded", loaded_context_length: 4096 }] };
 * if (readLmStudioModels(body, "q")?.tokens !== 4096) throw new Error();
 * ```
 */
export function readLmStudioModels(body: unknown, model: string): StatedWindow | undefined {
  const entry = pickModel(body, model, (m) => m.id);
  const tokens = positive(entry?.loaded_context_length);
  const type = entry?.type;
  return tokens === undefined ? undefined : {
    tokens,
    server: "lm-studio",
    source: "LM Studio /api/v0/models loaded_context_length",
    ...(type === "vlm" || type === "llm" ? { vision: type === "vlm" } : {}),
  };
}

/**
 * Reads Ollama's /api/ps body: `context_length` of the loaded model in use.
 *
 * @example
 * ```ts
 * import { readOllamaPs } from "./context_window.ts";
 * const body = { models: [{ name: "qwen3:4b", model: "qwen3:4b", context_length: 4096 }] };
 * if (readOllamaPs(body, "qwen3:4b")?.tokens !== 4096) throw new Error();
 * ```
 */
export function readOllamaPs(body: unknown, model: string): StatedWindow | undefined {
  const list = isRecord(body) && Array.isArray(body.models) ? body.models : [];
  const entry = list.find((m): m is JsonObject =>
    isRecord(m) && (m.name === model || m.model === model || m.name === `${model}:latest`)
  );
  const tokens = positive(entry?.context_length);
  return tokens === undefined
    ? undefined
    : { tokens, server: "ollama", source: "Ollama /api/ps context_length (as loaded)" };
}

/** The entry of a `{ data: [...] }` list for `model`, or the only entry. */
function pickModel(
  body: unknown,
  model: string,
  idOf: (entry: JsonObject) => unknown,
): JsonObject | undefined {
  const list = isRecord(body) && Array.isArray(body.data) ? body.data.filter(isRecord) : [];
  return list.find((entry) => idOf(entry) === model) ?? (list.length === 1 ? list[0] : undefined);
}

/**
 * Asks an OpenAI-compatible server for its context window, trying every server's endpoint at
 * once.
 *
 * @param baseUrl The endpoint with its version path (`http://127.0.0.1:8080/v1`).
 * @param model The model in use.
 * @param options Timeout, API key and abort signal.
 * @returns The stated window, or undefined when no endpoint states one.
 *
 * @example
 * ```ts
 * import { probeContextWindow } from "./context_window.ts";
 * const none = await probeContextWindow("http://127.0.0.1:9/v1", "m", { timeoutMs: 500 });
 * if (none !== undefined) throw new Error();
 * ```
 */
export async function probeContextWindow(
  baseUrl: string,
  model: string,
  options: ProbeOptions = {},
): Promise<StatedWindow | undefined> {
  const versioned = baseUrl.replace(/\/+$/, "");
  const root = versioned.replace(/\/v\d+$/, "");
  // The first probe (in this order) that states a window answers; the rest are stopped, so a
  // path that hangs does not hold the start for its whole timeout.
  const rest = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, rest.signal]) : rest.signal;
  const get = (url: string) =>
    fetchJson(url, {
      timeoutMs: options.timeoutMs ?? 3000,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      signal,
    });
  const probes = [
    get(`${root}/props`).then((body) => {
      options.onProps?.(body);
      return readLlamaServerProps(body);
    }),
    (options.models === undefined ? get(`${versioned}/models`) : Promise.resolve(options.models))
      .then((body) => readVllmModels(body, model)),
    get(`${root}/api/v0/models`).then((body) => readLmStudioModels(body, model)),
    get(`${root}/api/ps`).then((body) => readOllamaPs(body, model)),
  ];
  try {
    for (const probe of probes) {
      const window = await probe;
      if (window !== undefined) return window;
    }
    return undefined;
  } finally {
    rest.abort();
  }
}
