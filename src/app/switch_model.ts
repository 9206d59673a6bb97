// /model: the models the run's server offers, and opening another of them on the same server
// (its window read again, as at start). The conversation goes on with the new provider.

import { err, type Result } from "../errors.ts";
import type { AgentError } from "../errors.ts";
import type { Settings } from "../config/settings.ts";
import { openProvider } from "./open_provider.ts";
import { type OpenedProvider, OPENERS } from "./provider_openers.ts";

/** The settings that reach the server the run uses (the one found, if harness looked). */
function sameServer(settings: Settings, opened: OpenedProvider): Settings {
  return {
    ...settings,
    baseUrl: opened.baseUrl ?? settings.baseUrl,
    discover: false,
    ...(opened.provider.name === "ollama" ? { provider: "ollama" as const } : {}),
  };
}

function inProcess(settings: Settings): AgentError {
  return {
    kind: "usage",
    message: `The model runs in this process from "${settings.modelFile}": restart harness ` +
      "with another --model-file, or with --base-url for a server, to change it",
  };
}

/**
 * The models the run's server lists.
 *
 * @param settings The run's settings.
 * @param opened The provider in use.
 * @returns The model names, or why they cannot be listed.
 */
export async function listServerModels(
  settings: Settings,
  opened: OpenedProvider,
): Promise<Result<string[], AgentError>> {
  if (settings.modelFile !== undefined) return err(inProcess(settings));
  const server = sameServer(settings, opened);
  const opener = OPENERS.find((candidate) => candidate.serves(server));
  if (!opener?.listModels) return err(inProcess(settings));
  return await opener.listModels(server);
}

/**
 * Opens another model of the run's server, as the run opened its first: the window it states
 * (or --context-length), the turn output cap, text tool calls.
 *
 * @param settings The run's settings.
 * @param opened The provider in use.
 * @param model The model to open.
 * @returns The opened provider, or why it could not open (a model the server does not have).
 */
export async function openServerModel(
  settings: Settings,
  opened: OpenedProvider,
  model: string,
): Promise<Result<OpenedProvider, AgentError>> {
  if (settings.modelFile !== undefined) return err(inProcess(settings));
  return await openProvider({ ...sameServer(settings, opened), model });
}
