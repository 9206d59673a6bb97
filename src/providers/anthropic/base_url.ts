// Where the Anthropic Messages API lives for a --base-url: the provider's endpoints (messages,
// models, llama-server's /props) and the rule that picks this provider without --provider.
// Imported by config.ts to choose which API key variable applies, so it imports nothing.

/** The Anthropic API's host. */
export const ANTHROPIC_HOST = "api.anthropic.com";

/**
 * Whether a base URL speaks the Anthropic Messages API without `--provider anthropic`: its
 * path ends with `/v1/messages`, or its host is api.anthropic.com.
 *
 * @param baseUrl The --base-url value.
 * @returns `true` for the Anthropic wire format.
 *
 * @example
 * ```ts
 * import { isAnthropicBaseUrl } from "./base_url.ts";
 * if (!isAnthropicBaseUrl("http://127.0.0.1:8080/v1/messages")) throw new Error();
 * if (!isAnthropicBaseUrl("https://api.anthropic.com")) throw new Error();
 * if (isAnthropicBaseUrl("http://127.0.0.1:8080/v1")) throw new Error();
 * ```
 */
export function isAnthropicBaseUrl(baseUrl: string): boolean {
  try {
    const url = new URL(baseUrl);
    return url.hostname === ANTHROPIC_HOST || /\/v1\/messages\/*$/.test(url.pathname);
  } catch {
    return false;
  }
}

/** The endpoints of one server. */
export interface AnthropicEndpoints {
  /** The server root without a trailing slash, e.g. `http://127.0.0.1:8080`. */
  root: string;
  /** `<root>/v1/messages`. */
  messages: string;
  /** `<root>/v1/models`. */
  models: string;
  /** `<root>/props` (llama-server's settings, with its context size). */
  props: string;
}

/**
 * The endpoints for a base URL given as the root, `.../v1` or `.../v1/messages`.
 *
 * @param baseUrl The --base-url value.
 * @returns The root and the endpoints under it.
 *
 * @example
 * ```ts
 * import { anthropicEndpoints } from "./base_url.ts";
 * const e = anthropicEndpoints("http://127.0.0.1:8080/v1/messages/");
 * if (e.root !== "http://127.0.0.1:8080" || e.models !== "http://127.0.0.1:8080/v1/models") {
 *   throw new Error(JSON.stringify(e));
 * }
 * ```
 */
export function anthropicEndpoints(baseUrl: string): AnthropicEndpoints {
  const root = baseUrl.replace(/\/+$/, "").replace(/\/messages$/, "").replace(/\/v1$/, "");
  return {
    root,
    messages: `${root}/v1/messages`,
    models: `${root}/v1/models`,
    props: `${root}/props`,
  };
}
