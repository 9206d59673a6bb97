// Opens the model provider the settings ask for: looks for a local server when none is named,
// takes the first opener of the table (provider_openers.ts) that serves the settings, settles
// the context window, caps a turn's output (max_turn_tokens, max_turn_bytes) and reads tool
// calls written as text when asked to.

import { ok, type Result } from "../errors.ts";
import type { AgentError } from "../errors.ts";
import type { Settings } from "../config/settings.ts";
import { type OpenedProvider, OPENERS, type ProviderProgress } from "./provider_openers.ts";
import { withTurnOutputCap } from "../providers/turn_output_cap.ts";

/** The window assumed when neither the server nor --context-length states one. */
export const ASSUMED_CONTEXT_LENGTH = 8192;

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
    contextSource: "assumed: the server does not state it",
    notes: [
      ...(opened.notes ?? []),
      `The server at "${settings.baseUrl}" does not state its context window: assuming ` +
      `8,192 tokens; pass --context-length N if it differs`,
    ],
  };
}

/**
 * Opens the provider the settings ask for.
 *
 * @param settings Loaded settings.
 * @param progress How an in-process model's load and a model download are shown.
 * @returns The provider, or an error (usage errors exit 2, others 1).
 */
export async function openProvider(
  settings: Settings,
  progress: ProviderProgress = {},
): Promise<Result<OpenedProvider, AgentError>> {
  // The text tool-call readers load while the server is found and probed, not after.
  const textCalls = settings.textToolCalls
    ? import("../providers/with_text_tool_calls.ts")
    : undefined;
  textCalls?.catch(() => {}); // awaited below; meanwhile a failure must not go unhandled
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
  const opener = OPENERS.find((candidate) => candidate.serves(settings))!;
  const result = await opener.open(settings, progress);
  if (!result.ok) return result;
  // A turn that never ends is stopped (memory, terminal and session log stay bounded).
  let opened: OpenedProvider = {
    ...result.value.opened,
    provider: withTurnOutputCap(
      result.value.opened.provider,
      { maxTokens: settings.maxTurnTokens, maxBytes: settings.maxTurnBytes },
      settings.modelFile === undefined
        ? { baseUrl: settings.baseUrl }
        : { baseUrl: settings.modelFile, inProcess: true },
    ),
  };
  opened = withWindow(opened, settings);
  opened = { ...opened, baseUrl: settings.baseUrl, notes: [...found, ...(opened.notes ?? [])] };
  if (textCalls) {
    const { withTextToolCalls } = await textCalls;
    const { chatTemplate } = result.value;
    const options = chatTemplate === undefined ? {} : { chatTemplate };
    opened = { ...opened, provider: withTextToolCalls(opened.provider, options) };
  }
  return ok(opened);
}
