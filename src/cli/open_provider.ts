// Chooses and opens the model provider from settings: an in-process GGUF model
// (--model-file), Ollama's native API (--provider ollama, or an Ollama root URL), the
// Anthropic Messages API (--provider anthropic, a /v1/messages URL or api.anthropic.com), or
// any OpenAI-compatible server. Heavy modules are imported only for the provider in use.

import { err, ok, type Result } from "../errors.ts";
import type { AgentError } from "../errors.ts";
import type { ModelLister, Provider } from "../providers/provider.ts";
import type { Settings } from "../config/settings.ts";
import { isAnthropicBaseUrl } from "../providers/anthropic/base_url.ts";
import type { ServerKind } from "../providers/context_window.ts";
import { isModelUri } from "../providers/model_source.ts";
import type { ProgressSink } from "../ui/download_progress.ts";
import { modelCacheDir } from "../config/folders.ts";
import { withTurnOutputCap } from "../providers/turn_output_cap.ts";

/** The window assumed when neither the server nor --context-length states one. */
export const ASSUMED_CONTEXT_LENGTH = 8192;

/** The stall limits of the stream, in milliseconds, for the HTTP providers. */
function streamLimits(settings: Settings): { firstByteTimeoutMs: number; stallTimeoutMs: number } {
  return {
    firstByteTimeoutMs: settings.firstByteTimeout * 1000,
    stallTimeoutMs: settings.stallTimeout * 1000,
  };
}

/**
 * Settles the window: --context-length wins over what the server stated (except for an
 * in-process model, whose --ctx-size is its window); without either, 8,192 is assumed and
 * the user is told once.
 */
function withWindow(opened: OpenedProvider, settings: Settings): OpenedProvider {
  if (settings.contextLength !== undefined && settings.modelFile === undefined) {
    return { ...opened, contextLength: settings.contextLength, contextSource: "--context-length" };
  }
  if (opened.contextLength !== undefined) return opened;
  return {
    ...opened,
    contextLength: ASSUMED_CONTEXT_LENGTH,
    contextSource: "assumed (the server does not state it)",
    notes: [
      ...(opened.notes ?? []),
      `The server at "${settings.baseUrl}" does not state its context window: assuming ` +
      `8,192 tokens; pass --context-length N if it differs`,
    ],
  };
}

export interface OpenedProvider {
  provider: Provider;
  /** The context window in tokens: stated by the server, given by flag, or assumed. */
  contextLength?: number;
  /** Where the window came from, for /context. */
  contextSource?: string;
  /** The server in use (the one found, when harness looked for one). */
  baseUrl?: string;
  /** Things the user should know at startup. */
  notes?: string[];
  close?(): Promise<void>;
}

/**
 * Whether a base URL is Ollama's root (no `/v1`): then the native API is used.
 *
 * @example
 * ```ts
 * import { looksLikeOllamaRoot } from "./open_provider.ts";
 * if (!looksLikeOllamaRoot("http://127.0.0.1:11434")) throw new Error();
 * if (looksLikeOllamaRoot("http://127.0.0.1:11434/v1")) throw new Error();
 * ```
 */
export function looksLikeOllamaRoot(baseUrl: string): boolean {
  try {
    const url = new URL(baseUrl);
    return url.port === "11434" && (url.pathname === "/" || url.pathname === "");
  } catch {
    return false;
  }
}

async function resolveModel(
  lister: ModelLister,
  baseUrl: string,
): Promise<Result<string>> {
  const listed = await lister.listModels();
  if (!listed.ok) return listed;
  const models = listed.value;
  if (models.length === 1) return ok(models[0]!);
  if (models.length === 0) {
    return err({
      kind: "usage",
      message:
        `No models found at "${baseUrl}": pull one (e.g. "ollama pull qwen3") or pass --model`,
    });
  }
  return err({
    kind: "usage",
    message: `Several models at "${baseUrl}": pass --model NAME, one of: ${models.join(", ")}`,
  });
}

/**
 * Opens the provider the settings ask for.
 *
 * @param settings Loaded settings.
 * @param onProgress Load progress of an in-process model (0..1).
 * @param downloadSink Where the download of an `hf:` or URL --model-file shows its progress
 *   (default stderr).
 * @returns The provider, or an error (usage errors exit 2, others 1).
 */
export async function openProvider(
  settings: Settings,
  onProgress?: (fraction: number) => void,
  downloadSink?: ProgressSink,
): Promise<Result<OpenedProvider, AgentError>> {
  let opened: OpenedProvider;
  let chatTemplate: string | undefined; // chooses the tool-call formats read from text
  const found: string[] = [];
  if (settings.discover) {
    const { discoverServer } = await import("../providers/discover_server.ts");
    const server = await discoverServer();
    if (!server.ok) return server;
    settings = {
      ...settings,
      baseUrl: server.value.baseUrl,
      ...(server.value.provider === "ollama" ? { provider: "ollama" as const } : {}),
    };
    found.push(
      `Using ${server.value.name} at ${server.value.baseUrl}, found on this machine ` +
        `(pass --base-url to choose another server)`,
    );
  }
  if (settings.modelFile !== undefined) {
    let modelFile = settings.modelFile;
    if (isModelUri(modelFile)) {
      // `hf:` or a URL: fetched once into the cache folder (src/providers/model_download.ts).
      const [{ fetchModel }, { downloadProgress }] = await Promise.all([
        import("../providers/model_download.ts"),
        import("../ui/download_progress.ts"),
      ]);
      const sink = downloadSink ?? {
        write: (text: string) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
        isTerminal: Deno.stderr.isTerminal(),
      };
      const fetched = await fetchModel({ uri: modelFile }, {
        dir: modelCacheDir(),
        ...downloadProgress(modelFile, sink),
      });
      if (!fetched.ok) return fetched;
      modelFile = fetched.value.path;
    }
    const { createLlamaCppProvider } = await import("../providers/llama_cpp.ts");
    const loaded = await createLlamaCppProvider({
      modelFile,
      gpu: settings.gpu,
      ...(settings.ctxSize ? { ctxSize: settings.ctxSize } : {}),
      ...(onProgress ? { onProgress } : {}),
    });
    if (!loaded.ok) return loaded;
    opened = {
      provider: loaded.value,
      contextLength: loaded.value.contextSize,
      contextSource: "the in-process model's context size",
      close: () => loaded.value.close(),
    };
  } else if (
    settings.provider === "ollama" ||
    (settings.provider === undefined && looksLikeOllamaRoot(settings.baseUrl))
  ) {
    const { createOllamaProvider } = await import("../providers/ollama.ts");
    const make = (model: string) =>
      createOllamaProvider({
        baseUrl: settings.baseUrl,
        model,
        maxNumCtx: settings.numCtx,
        ...(settings.contextLength ? { numCtx: settings.contextLength } : {}),
        ...streamLimits(settings),
      });
    let model = settings.model;
    if (model === undefined) {
      const resolved = await resolveModel(make(""), settings.baseUrl);
      if (!resolved.ok) return resolved;
      model = resolved.value;
    }
    const provider = make(model);
    const info = await provider.inspect();
    if (!info.ok) return info;
    // An empty list means the server did not say, not "no tools".
    const { capabilities } = info.value;
    chatTemplate = info.value.template;
    if (capabilities.length > 0 && !capabilities.includes("tools")) {
      return err({
        kind: "usage",
        message: `Model "${model}" does not support tools: pick a model whose capabilities ` +
          `include "tools" (ollama show ${model})`,
      });
    }
    const trained = info.value.contextLength;
    opened = {
      provider,
      contextLength: await provider.numCtx(),
      contextSource: settings.contextLength
        ? "--context-length, sent to Ollama as num_ctx"
        : `num_ctx sent to Ollama (--num-ctx caps it${
          trained ? `; the model was trained for ${trained}` : ""
        })`,
    };
  } else if (
    settings.provider === "anthropic" ||
    (settings.provider === undefined && isAnthropicBaseUrl(settings.baseUrl))
  ) {
    const { createAnthropicProvider } = await import("../providers/anthropic.ts");
    const make = (model: string) =>
      createAnthropicProvider({
        baseUrl: settings.baseUrl,
        model,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      });
    let model = settings.model;
    if (model === undefined) {
      const resolved = await resolveModel(make(""), settings.baseUrl);
      if (!resolved.ok) return resolved;
      model = resolved.value;
    }
    const provider = make(model);
    // llama-server says its context size at /props; Anthropic's own models all take 200k.
    const stated = await provider.contextLength();
    const anthropicHost = new URL(settings.baseUrl).hostname === "api.anthropic.com";
    const contextLength = stated ?? (anthropicHost ? 200_000 : undefined);
    opened = {
      provider,
      ...(contextLength
        ? {
          contextLength,
          contextSource: stated ? "llama-server /props n_ctx" : "Anthropic models' window",
        }
        : {}),
    };
  } else {
    const { createOpenAICompatProvider } = await import("../providers/openai_compat.ts");
    const { probeContextWindow } = await import("../providers/context_window.ts");
    const make = (model: string, server?: ServerKind) =>
      createOpenAICompatProvider({
        baseUrl: settings.baseUrl,
        model,
        toolCallIds: settings.toolCallIds,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        ...streamLimits(settings),
        ...(server === "llama-server" ? { promptProgress: true } : {}),
      });
    let model = settings.model;
    if (model === undefined) {
      const resolved = await resolveModel(make(""), settings.baseUrl);
      if (!resolved.ok) return resolved;
      model = resolved.value;
    }
    const stated = await probeContextWindow(settings.baseUrl, model, {
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    });
    // llama-server states its chat template too: it picks the text tool-call formats to read.
    if (stated?.chatTemplate) chatTemplate = stated.chatTemplate;
    opened = {
      provider: make(model, stated?.server),
      ...(stated ? { contextLength: stated.tokens, contextSource: stated.source } : {}),
    };
    if (looksLikeOllamaRoot(settings.baseUrl.replace(/\/v1$/, ""))) {
      // Ollama's OpenAI-compatible endpoint ignores num_ctx, so its small default applies.
      opened.notes = [
        `Ollama's OpenAI-compatible endpoint uses Ollama's default context size: for ` +
        `--num-ctx ${settings.numCtx} use its native API with --base-url ${
          settings.baseUrl.replace(/\/v1$/, "")
        }`,
      ];
    }
  }
  // A turn that never ends is stopped (memory, terminal and session log stay bounded).
  opened = {
    ...opened,
    provider: withTurnOutputCap(
      opened.provider,
      { maxTokens: settings.maxTurnTokens, maxBytes: settings.maxTurnBytes },
      settings.modelFile === undefined
        ? { baseUrl: settings.baseUrl }
        : { baseUrl: settings.modelFile, inProcess: true },
    ),
  };
  opened = withWindow(opened, settings);
  opened = { ...opened, baseUrl: settings.baseUrl, notes: [...found, ...(opened.notes ?? [])] };
  if (settings.textToolCalls) {
    const { withTextToolCalls } = await import("../providers/with_text_tool_calls.ts");
    const options = chatTemplate === undefined ? {} : { chatTemplate };
    opened = { ...opened, provider: withTextToolCalls(opened.provider, options) };
  }
  return ok(opened);
}
