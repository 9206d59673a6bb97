// Finds a local model server when no --base-url or base_url is given: Ollama (11434, through
// its native API so num_ctx applies), llama.cpp's llama-server (8080), LM Studio (1234) and
// vLLM (8000) are asked at once with a short timeout, and the first in that order that answers
// is used. When none does, the error says how to start each one. Never throws.

import type { AgentError, Result } from "../errors.ts";
import { err, ok } from "../errors.ts";
import { httpRequest } from "./http_request.ts";

/** A server to look for. */
export interface ServerCandidate {
  /** For the user: "Ollama", "llama-server", ... */
  name: string;
  /** The base URL harness uses when it answers. */
  baseUrl: string;
  /** Which provider speaks to it. */
  provider: "ollama" | "openai";
  /** One line saying how to start it. */
  start: string;
}

/** The local servers, in the order they are preferred. */
export const LOCAL_SERVERS: readonly ServerCandidate[] = [
  {
    name: "Ollama",
    baseUrl: "http://127.0.0.1:11434",
    provider: "ollama",
    start: `Ollama (port 11434): "ollama serve", then "ollama pull qwen3:4b"`,
  },
  {
    name: "llama-server",
    baseUrl: "http://127.0.0.1:8080/v1",
    provider: "openai",
    start: `llama.cpp (port 8080): "llama-server --jinja -hf Qwen/Qwen3-4B-GGUF"`,
  },
  {
    name: "LM Studio",
    baseUrl: "http://127.0.0.1:1234/v1",
    provider: "openai",
    start: `LM Studio (port 1234): "lms server start", then load a model`,
  },
  {
    name: "vLLM",
    baseUrl: "http://127.0.0.1:8000/v1",
    provider: "openai",
    start: `vLLM (port 8000): "vllm serve Qwen/Qwen3-4B --enable-auto-tool-choice ` +
      `--tool-call-parser hermes"`,
  },
];

/**
 * Asks every candidate at once and returns the first, in the given order, that answers like
 * a model server (Ollama's /api/tags, or an OpenAI-style /v1/models list).
 *
 * @param candidates The servers to look for, preferred first (default {@linkcode LOCAL_SERVERS}).
 * @param options Per-server timeout (default 1.5 s).
 * @returns The server found, or a `provider_unreachable` error saying how to start each one.
 *
 * @example
 * ```ts
 * import { discoverServer } from "./discover_server.ts";
 * const none = await discoverServer([{
 *   name: "Nothing", baseUrl: "http://127.0.0.1:9/v1", provider: "openai", start: "x",
 * }], { timeoutMs: 500 });
 * if (none.ok || none.error.kind !== "provider_unreachable") throw new Error();
 * ```
 */
export async function discoverServer(
  candidates: readonly ServerCandidate[] = LOCAL_SERVERS,
  options: { timeoutMs?: number } = {},
): Promise<Result<ServerCandidate, AgentError>> {
  const timeoutMs = options.timeoutMs ?? 1500;
  const answers = candidates.map((candidate) => answersLikeAServer(candidate, timeoutMs));
  // The first in order wins, without waiting for slower ones behind it.
  for (const [index, answer] of answers.entries()) {
    if (await answer) return ok(candidates[index]!);
  }
  return err({
    kind: "provider_unreachable",
    baseUrl: candidates.map((c) => c.baseUrl).join(", "),
    cause: `${NO_SERVER}. Start one, or pass --base-url URL:\n` +
      candidates.map((c) => `  ${c.start}`).join("\n"),
  });
}

const NO_SERVER = "no local model server answered";

/**
 * Whether `error` is discoverServer's "none answered" (not a server found and then failing).
 *
 * @example
 * ```ts
 * import { discoverServer, isNoServerError } from "./discover_server.ts";
 * const none = await discoverServer([{
 *   name: "Nothing", baseUrl: "http://127.0.0.1:9/v1", provider: "openai", start: "x",
 * }], { timeoutMs: 500 });
 * if (none.ok || !isNoServerError(none.error)) throw new Error();
 * ```
 */
export function isNoServerError(error: AgentError): boolean {
  return error.kind === "provider_unreachable" && error.cause.startsWith(NO_SERVER);
}

async function answersLikeAServer(candidate: ServerCandidate, timeoutMs: number): Promise<boolean> {
  const url = candidate.provider === "ollama"
    ? `${candidate.baseUrl}/api/tags`
    : `${candidate.baseUrl}/models`;
  try {
    const response = await httpRequest(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) {
      await response.body.cancel();
      return false;
    }
    const body: unknown = await response.json();
    if (typeof body !== "object" || body === null) return false;
    return Array.isArray(
      (body as Record<string, unknown>)[
        candidate.provider === "ollama" ? "models" : "data"
      ],
    );
  } catch {
    return false;
  }
}
