// `harness doctor`'s probe of a model server as harness uses it: what the server states (its kind,
// the model's chat template and its format family, vision), whether tool calls come back parsed, as
// text or not at all (the canary), and prompt and generation speed (one short request). The front
// end (src/cli/commands/doctor_command.ts) opens the provider and says what to set.

import type { AgentError, Result } from "../../errors.ts";
import { err, ok } from "../../errors.ts";
import type { Provider } from "../provider.ts";
import { familiesFromTemplate } from "../text_tool_calls/chat_template.ts";
import type { FormatFamily } from "../text_tool_calls.ts";
import { readServerFacts } from "./server_facts.ts";
import { measureSpeed } from "./speed_probe.ts";
import { probeToolCalls, type ToolCallSupport } from "./tool_call_canary.ts";

/** What the probe found. */
export interface ServerProbe {
  /** For the user: "llama-server", "Ollama", ... */
  server: string;
  /** The tool-call format families the chat template names ("hermes", "glm+..."),
   * "unrecognised" when it names none, null when the server states no template. */
  template: string | null;
  toolCalls: ToolCallSupport;
  /** With toolCalls "text": the format family the model wrote. */
  textFormat?: FormatFamily;
  /** With toolCalls "none": the model was still writing at the canary's token limit. */
  canaryCut?: boolean;
  promptTokensPerS: number | null;
  generatedTokensPerS: number | null;
  /** Whether the model reads images; null when the server does not say. */
  vision: boolean | null;
  /** Ollama's capabilities for the model, when it lists them. */
  capabilities?: string[];
}

/** Options of {@linkcode probeServer}. */
export interface ProbeServerOptions {
  /** The API key, for servers that want one (their /props, /models). */
  apiKey?: string;
  /** Each request's deadline; default 5 minutes (a CPU may take that for a first answer). */
  requestTimeoutMs?: number;
  /** Ctrl-C. */
  signal?: AbortSignal;
  /** Milliseconds; default performance.now. */
  now?: () => number;
  /** Starts every prompt; default a random one, so no server reuses a cached prefix. */
  nonce?: string;
}

/**
 * The family names a chat template's tool-call markup belongs to.
 *
 * @param template The Jinja chat template, if the server stated one.
 * @returns "hermes", "minimax+jamba", "unrecognised", or null without a template.
 *
 * @example
 * ```ts
 * import { templateFamily } from "./probe_server.ts";
 * if (templateFamily("{{ '<tool_call>' }}") !== "hermes") throw new Error();
 * if (templateFamily("{{ messages }}") !== "unrecognised" || templateFamily(undefined) !== null) {
 *   throw new Error();
 * }
 * ```
 */
export function templateFamily(template: string | undefined): string | null {
  if (template === undefined) return null;
  return familiesFromTemplate(template)?.join("+") ?? "unrecognised";
}

/**
 * Probes the server behind `provider`: what it states, the canary, then the speed request.
 *
 * @param provider The provider as harness opens it, without the text tool-call wrapper.
 * @param baseUrl The server's base URL.
 * @param options API key, deadline, abort signal, clock and nonce.
 * @returns What was found, or the error of a request that failed (the server is not usable).
 */
export async function probeServer(
  provider: Provider,
  baseUrl: string,
  options: ProbeServerOptions = {},
): Promise<Result<ServerProbe, AgentError>> {
  const nonce = options.nonce ?? crypto.randomUUID().slice(0, 8);
  const deadline = () => {
    const signals = [AbortSignal.timeout(options.requestTimeoutMs ?? 300_000)];
    if (options.signal) signals.push(options.signal);
    return AbortSignal.any(signals);
  };
  const facts = readServerFacts({
    provider: provider.name,
    baseUrl,
    model: provider.model,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  }, options.signal ? { signal: options.signal } : {});
  const canary = await probeToolCalls(provider, { nonce, baseUrl, signal: deadline() });
  if (!canary.ok) return err(canary.error);
  const speed = await measureSpeed(provider, {
    nonce: `${nonce}-speed`,
    baseUrl,
    signal: deadline(),
    ...(options.now ? { now: options.now } : {}),
  });
  if (!speed.ok) return err(speed.error);
  const stated = await facts;
  return ok({
    server: stated.server,
    template: templateFamily(stated.chatTemplate),
    toolCalls: canary.value.support,
    ...(canary.value.format ? { textFormat: canary.value.format } : {}),
    ...(canary.value.cut ? { canaryCut: true } : {}),
    promptTokensPerS: speed.value.promptTokensPerS,
    generatedTokensPerS: speed.value.generatedTokensPerS,
    vision: stated.vision ?? null,
    ...(stated.capabilities ? { capabilities: stated.capabilities } : {}),
  });
}
