// Whether the run's model can see images, asked once and only when an image is about to be
// sent: the `vision` setting when it says true or false; else what the server states (Ollama's
// /api/show capabilities, llama-server's /props modalities, LM Studio's model type); the
// Anthropic API always can, the in-process model cannot. Unknown means "send and see".

import type { Settings } from "../config/settings.ts";
import { readServerFacts } from "../providers/server_probe/server_facts.ts";

/** What is known about the model's sight, and a sentence for a refusal. */
export interface VisionVerdict {
  /** true, false, or undefined when the server does not say. */
  sees: boolean | undefined;
  /** Why not (with what to do), when `sees` is false. */
  why?: string;
}

/** What the run's provider is, for the question. */
export interface VisionTarget {
  /** The provider's name: "openai", "ollama", "anthropic", "llama.cpp", "scripted". */
  provider: string;
  model: string;
  baseUrl: string;
  apiKey?: string;
}

/**
 * Makes the run's question "can the model see?", answered once.
 *
 * @param settings The `vision` setting.
 * @param target The provider, model, server and key.
 * @returns A function that answers (the first call may ask the server, 3 s at most).
 *
 * @example
 * ```ts
 * import { modelVision } from "./model_vision.ts";
 * const asked = modelVision({ vision: false }, { provider: "openai", model: "m", baseUrl: "http://127.0.0.1:9/v1" });
 * const verdict = await asked();
 * if (verdict.sees !== false || !verdict.why?.includes('"vision"')) throw new Error();
 * ```
 */
export function modelVision(
  settings: Pick<Settings, "vision">,
  target: VisionTarget,
): () => Promise<VisionVerdict> {
  let answer: Promise<VisionVerdict> | undefined;
  return () => answer ??= ask(settings, target);
}

async function ask(
  settings: Pick<Settings, "vision">,
  target: VisionTarget,
): Promise<VisionVerdict> {
  const name = `Model "${target.model}"`;
  if (settings.vision === true) return { sees: true };
  if (settings.vision === false) {
    return { sees: false, why: `${name} cannot see images ("vision": false in config)` };
  }
  switch (target.provider) {
    case "anthropic":
      return { sees: true };
    case "llama.cpp":
      return {
        sees: false,
        why: `${name} runs in harness's own process, which does not send images: serve it ` +
          "with llama-server --mmproj FILE and pass --base-url",
      };
    case "ollama":
    case "openai": {
      const facts = await readServerFacts({
        provider: target.provider,
        baseUrl: target.baseUrl,
        model: target.model,
        ...(target.apiKey === undefined ? {} : { apiKey: target.apiKey }),
      });
      if (facts.vision !== false) return { sees: facts.vision };
      const fix = target.provider === "ollama"
        ? 'Ollama does not list "vision" among its capabilities: use a vision model ' +
          "(qwen2.5vl, gemma3, llama3.2-vision)"
        : facts.server === "llama-server"
        ? "llama-server was started without a vision projector: start it with --mmproj FILE"
        : `${facts.server} says it takes text only: load a vision model`;
      return {
        sees: false,
        why: `${name} cannot see images (${fix}), or set "vision": true in config if it can`,
      };
    }
    default:
      return { sees: undefined };
  }
}
