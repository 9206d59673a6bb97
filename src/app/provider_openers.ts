// The table of provider openers: an in-process GGUF model (--model-file), Ollama's native API
// (--provider ollama, or an Ollama root URL), the Anthropic Messages API (--provider anthropic,
// a /v1/messages URL or api.anthropic.com) and any OpenAI-compatible server. The server
// openers share one model-resolution step; each imports its provider module only when chosen.

import { err, ok, type Result } from "../errors.ts";
import type { AgentError } from "../errors.ts";
import type { ModelLister, Provider } from "../providers/provider.ts";
import type { OllamaProvider } from "../providers/ollama.ts";
import type { AnthropicProvider } from "../providers/anthropic.ts";
import type { Settings } from "../config/settings.ts";
import { isAnthropicBaseUrl } from "../providers/anthropic/base_url.ts";
import { isModelUri } from "../providers/model_source.ts";
import { modelCacheDir } from "../config/folders.ts";
import type { DownloadEvents } from "../providers/model_download.ts";
import { readSlotLayout, type SlotLayout } from "../providers/server_slots.ts";

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
  /**
   * How the server's slots are laid out, when it was read while opening (the window probe's
   * /props); the subagents' scheduler asks the server itself when it is left out.
   */
  slotLayout?: SlotLayout;
  close?(): Promise<void>;
}

/** How a front end follows the opening (an in-process model's load, a model download). */
export interface ProviderProgress {
  /** Load progress of an in-process model (0..1). */
  loadProgress?(fraction: number): void;
  /** Shows the download of an `hf:` or URL --model-file (none when left out). */
  download?(name: string): Promise<DownloadEvents>;
}

/** What an opener found, before the window is settled. */
export interface Found {
  opened: OpenedProvider;
  /** The chat template, when the server states it: it picks the text tool-call formats. */
  chatTemplate?: string;
}

/** One way to reach a model: whether it serves these settings, and how it opens. */
export interface ProviderOpener {
  serves(settings: Settings): boolean;
  open(settings: Settings, progress: ProviderProgress): Promise<Result<Found, AgentError>>;
  /** The models the server offers (/model); absent for a model run in this process. */
  listModels?(settings: Settings): Promise<Result<string[], AgentError>>;
}

/**
 * A model server: how to make its provider for a model name (the lister of its models for
 * ""), and what it says about the model once named (window, template, tool support).
 */
interface ServerKind<P extends Provider & ModelLister> {
  load(settings: Settings): Promise<(model: string) => P>;
  inspect(provider: P, settings: Settings): Promise<Result<Found, AgentError>>;
}

/**
 * Whether a base URL is Ollama's root (no `/v1`): then the native API is used.
 *
 * @example
 * ```ts
 * import { looksLikeOllamaRoot } from "./provider_openers.ts";
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

/** The stall limits of the stream, in milliseconds, for the HTTP providers. */
function streamLimits(settings: Settings): { firstByteTimeoutMs: number; stallTimeoutMs: number } {
  return {
    firstByteTimeoutMs: settings.firstByteTimeout * 1000,
    stallTimeoutMs: settings.stallTimeout * 1000,
  };
}

/** The model to use: the one named, else the server's only model. */
async function resolveModel(
  settings: Settings,
  lister: ModelLister,
): Promise<Result<string>> {
  if (settings.model !== undefined) return ok(settings.model);
  const listed = await lister.listModels();
  if (!listed.ok) return listed;
  const models = listed.value;
  if (models.length === 1) return ok(models[0]!);
  const { baseUrl } = settings;
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

/** The opener of a model server: make the provider, resolve the model, inspect it. */
function serverOpener<P extends Provider & ModelLister>(
  serves: (settings: Settings) => boolean,
  kind: ServerKind<P>,
): ProviderOpener {
  return {
    serves,
    async listModels(settings) {
      return await (await kind.load(settings))("").listModels();
    },
    async open(settings) {
      const make = await kind.load(settings);
      const model = await resolveModel(settings, make(""));
      if (!model.ok) return model;
      return await kind.inspect(make(model.value), settings);
    },
  };
}

const OLLAMA: ServerKind<OllamaProvider> = {
  async load(settings) {
    const { createOllamaProvider } = await import("../providers/ollama.ts");
    return (model) =>
      createOllamaProvider({
        baseUrl: settings.baseUrl,
        model,
        maxNumCtx: settings.numCtx,
        ...(settings.contextLength ? { numCtx: settings.contextLength } : {}),
        ...streamLimits(settings),
      });
  },
  async inspect(provider, settings) {
    const info = await provider.inspect();
    if (!info.ok) return info;
    // An empty list means the server did not say, not "no tools".
    const { capabilities } = info.value;
    const model = provider.model;
    if (capabilities.length > 0 && !capabilities.includes("tools")) {
      return err({
        kind: "usage",
        message: `Model "${model}" does not support tools: pick a model whose capabilities ` +
          `include "tools" (ollama show ${model})`,
      });
    }
    const trained = info.value.contextLength;
    return ok({
      opened: {
        provider,
        contextLength: await provider.numCtx(),
        contextSource: settings.contextLength
          ? "--context-length, sent to Ollama as num_ctx"
          : `num_ctx sent to Ollama (--num-ctx caps it${
            trained ? `; the model was trained for ${trained}` : ""
          })`,
      },
      ...(info.value.template !== undefined ? { chatTemplate: info.value.template } : {}),
    });
  },
};

const ANTHROPIC: ServerKind<AnthropicProvider> = {
  async load(settings) {
    const { createAnthropicProvider } = await import("../providers/anthropic.ts");
    return (model) =>
      createAnthropicProvider({
        baseUrl: settings.baseUrl,
        model,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      });
  },
  async inspect(provider, settings) {
    // llama-server says its context size at /props; Anthropic's own models all take 200k.
    const stated = await provider.contextLength();
    const anthropicHost = new URL(settings.baseUrl).hostname === "api.anthropic.com";
    const contextLength = stated ?? (anthropicHost ? 200_000 : undefined);
    return ok({
      opened: {
        provider,
        ...(contextLength
          ? {
            contextLength,
            contextSource: stated ? "llama-server /props n_ctx" : "Anthropic models' window",
          }
          : {}),
      },
    });
  },
};

/** An OpenAI-compatible server; its window is probed once the model is known. */
const OPENAI_COMPAT: ProviderOpener = {
  serves: () => true,
  async listModels(settings) {
    const { createOpenAICompatProvider } = await import("../providers/openai_compat.ts");
    return await createOpenAICompatProvider({
      baseUrl: settings.baseUrl,
      model: "",
      toolCallIds: settings.toolCallIds,
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      ...streamLimits(settings),
    }).listModels();
  },
  async open(settings) {
    const [{ createOpenAICompatProvider }, { probeContextWindow }] = await Promise
      .all([import("../providers/openai_compat.ts"), import("../providers/context_window.ts")]);
    const make = (model: string, promptProgress = false) =>
      createOpenAICompatProvider({
        baseUrl: settings.baseUrl,
        model,
        toolCallIds: settings.toolCallIds,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        ...streamLimits(settings),
        ...(promptProgress ? { promptProgress: true } : {}),
      });
    const lister = make("");
    const model = await resolveModel(settings, lister);
    if (!model.ok) return model;
    let slotLayout: SlotLayout | undefined;
    // The model list just fetched (no --model) is the answer vLLM's window is read from.
    const listed = lister.listedModels();
    const stated = await probeContextWindow(settings.baseUrl, model.value, {
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      ...(listed === undefined ? {} : { models: { data: listed } }),
      // The same /props states the slots: the subagents' scheduler need not ask again.
      onProps: (body) => slotLayout = readSlotLayout(body),
    });
    const opened: OpenedProvider = {
      provider: make(model.value, stated?.server === "llama-server"),
      ...(slotLayout ? { slotLayout } : {}),
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
    // llama-server states its chat template too: it picks the text tool-call formats to read.
    return ok({ opened, ...(stated?.chatTemplate ? { chatTemplate: stated.chatTemplate } : {}) });
  },
};

/** A GGUF file run in this process; an `hf:` or URL file is fetched into the cache first. */
const IN_PROCESS: ProviderOpener = {
  serves: (settings) => settings.modelFile !== undefined,
  async open(settings, progress) {
    let modelFile = settings.modelFile!;
    if (isModelUri(modelFile)) {
      const { fetchModel } = await import("../providers/model_download.ts");
      const fetched = await fetchModel({ uri: modelFile }, {
        dir: modelCacheDir(),
        ...(await progress.download?.(modelFile) ?? {}),
      });
      if (!fetched.ok) return fetched;
      modelFile = fetched.value.path;
    }
    const { createLlamaCppProvider } = await import("../providers/llama_cpp.ts");
    const loaded = await createLlamaCppProvider({
      modelFile,
      gpu: settings.gpu,
      ...(settings.ctxSize ? { ctxSize: settings.ctxSize } : {}),
      ...(progress.loadProgress ? { onProgress: progress.loadProgress } : {}),
    });
    if (!loaded.ok) return loaded;
    return ok({
      opened: {
        provider: loaded.value,
        contextLength: loaded.value.contextSize,
        contextSource: "the in-process model's context size",
        close: () => loaded.value.close(),
      },
    });
  },
};

/** The openers, in the order they are asked; the last serves every other setting. */
export const OPENERS: readonly ProviderOpener[] = [
  IN_PROCESS,
  serverOpener(
    (s) => s.provider === "ollama" || (s.provider === undefined && looksLikeOllamaRoot(s.baseUrl)),
    OLLAMA,
  ),
  serverOpener((s) =>
    s.provider === "anthropic" ||
    (s.provider === undefined && isAnthropicBaseUrl(s.baseUrl)), ANTHROPIC),
  OPENAI_COMPAT,
];
