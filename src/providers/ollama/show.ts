// POST /api/show: asks Ollama for the model's trained context length and capabilities, so the
// provider can size num_ctx and refuse tools for a model without them. Never throws: failures
// become error Results.

import { type AgentError, ok, type Result } from "../../errors.ts";
import { ollamaApiJson } from "./api_json.ts";
import { isRecord } from "../../platform/json_values.ts";

/** What /api/show says about the model. */
export interface OllamaModelInfo {
  /** The model's trained context length (`model_info["<arch>.context_length"]`). */
  contextLength?: number;
  /** For example ["completion", "tools", "thinking"]; empty when the server does not say. */
  capabilities: string[];
  /** The model's chat template (it names the tool-call markup the model writes). */
  template?: string;
}

/**
 * Reads an /api/show body. The context length is `<arch>.context_length` for the model's
 * `general.architecture`, else any `*.context_length` key.
 *
 * @param body The parsed JSON body (anything; unknown shapes give an empty answer).
 * @returns The context length when positive, and the capabilities.
 *
 * @example
 * ```ts
 * import { parseShowBody } from "./show.ts";
 * const info = parseShowBody({
 *   model_info: { "general.architecture": "qwen3", "qwen3.context_length": 40960 },
 *   capabilities: ["completion", "tools"],
 * });
 * if (info.contextLength !== 40960 || info.capabilities.length !== 2) throw new Error();
 * ```
 */
export function parseShowBody(body: unknown): OllamaModelInfo {
  const info = isRecord(body) && isRecord(body.model_info) ? body.model_info : {};
  const arch = info["general.architecture"];
  const lengthKey = typeof arch === "string" && `${arch}.context_length` in info
    ? `${arch}.context_length`
    : Object.keys(info).find((key) => key.endsWith(".context_length"));
  const length = lengthKey === undefined ? undefined : info[lengthKey];
  const capabilities = isRecord(body) && Array.isArray(body.capabilities)
    ? body.capabilities.filter((c): c is string => typeof c === "string")
    : [];
  const template = isRecord(body) && typeof body.template === "string" ? body.template : "";
  return {
    ...(typeof length === "number" && length > 0 ? { contextLength: length } : {}),
    capabilities,
    ...(template !== "" ? { template } : {}),
  };
}

/**
 * Asks the server's /api/show about a model.
 *
 * @param root The server's root URL (no trailing slash).
 * @param model The model name.
 * @param options An optional abort signal.
 * @returns The model's info, or `provider_unreachable` / `provider_http` / `usage`.
 *
 * @example
 * ```ts
 * import { showModel } from "./show.ts";
 * const r = await showModel("http://127.0.0.1:9", "qwen3");
 * if (r.ok || r.error.kind !== "provider_unreachable") throw new Error();
 * ```
 */
export async function showModel(
  root: string,
  model: string,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<Result<OllamaModelInfo, AgentError>> {
  const body = await ollamaApiJson(root, {
    path: "/api/show",
    model,
    body: { model },
    signal: options.signal,
  });
  if (!body.ok) return body;
  return ok(parseShowBody(body.value));
}
