// What a model server states about itself and its model, for `harness doctor`: which server
// it is, the model's chat template and whether it reads images. Read where each server
// states them, by the same readers the providers use (context_window.ts for OpenAI-compatible
// servers, ollama/show.ts for Ollama). Never throws: what cannot be read is left out.

import { probeContextWindow, type ServerKind } from "../context_window.ts";
// Not ../ollama.ts: the whole provider would load on every run's path for one URL helper.
import { ollamaRoot } from "../ollama/api_json.ts";
import { showModel } from "../ollama/show.ts";

/** What the server says, where it says it. */
export interface ServerFacts {
  /** For the user: "llama-server", "Ollama", "vLLM", ... */
  server: string;
  /** The model's chat template (llama-server /props, Ollama /api/show). */
  chatTemplate?: string;
  /** Whether the model reads images, when the server says. */
  vision?: boolean;
  /** Ollama's capabilities ("completion", "tools", "vision", ...), when it lists them. */
  capabilities?: string[];
}

/** Where to ask: the provider in use (its `name`), the server and the model. */
export interface FactsTarget {
  provider: string;
  baseUrl: string;
  model: string;
  apiKey?: string;
}

const SERVER_NAMES: Record<ServerKind, string> = {
  "llama-server": "llama-server",
  vllm: "vLLM",
  "lm-studio": "LM Studio",
  ollama: "Ollama (OpenAI-compatible endpoint)",
  unknown: "an OpenAI-compatible server",
};

/**
 * Reads what the server states about the model.
 *
 * @param target The provider's name ("openai", "ollama", "anthropic", "llama.cpp"), the base
 *   URL, the model and the API key.
 * @param options Per-request timeout (default 3 s) and an abort signal.
 * @returns The facts found.
 *
 * @example
 * ```ts
 * import { readServerFacts } from "./server_facts.ts";
 * const facts = await readServerFacts(
 *   { provider: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" },
 *   { timeoutMs: 300 },
 * );
 * if (facts.server !== "an OpenAI-compatible server" || facts.chatTemplate) throw new Error();
 * ```
 */
export async function readServerFacts(
  target: FactsTarget,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ServerFacts> {
  switch (target.provider) {
    case "ollama": {
      const signals = [AbortSignal.timeout(options.timeoutMs ?? 3000)];
      if (options.signal) signals.push(options.signal);
      const shown = await showModel(ollamaRoot(target.baseUrl), target.model, {
        signal: AbortSignal.any(signals),
      });
      if (!shown.ok) return { server: "Ollama" };
      const { template, capabilities } = shown.value;
      return {
        server: "Ollama",
        ...(template === undefined ? {} : { chatTemplate: template }),
        // An empty list means Ollama did not say.
        ...(capabilities.length > 0
          ? { capabilities, vision: capabilities.includes("vision") }
          : {}),
      };
    }
    case "openai": {
      const stated = await probeContextWindow(target.baseUrl, target.model, {
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(target.apiKey === undefined ? {} : { apiKey: target.apiKey }),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return {
        server: SERVER_NAMES[stated?.server ?? "unknown"],
        ...(stated?.chatTemplate === undefined ? {} : { chatTemplate: stated.chatTemplate }),
        ...(stated?.vision === undefined ? {} : { vision: stated.vision }),
      };
    }
    case "anthropic":
      return { server: "the Anthropic Messages API" };
    case "llama.cpp":
      return { server: "the in-process model (node-llama-cpp)" };
    default:
      return { server: target.provider };
  }
}
