// Built-in tool web_search: searches the web with the engine the user configured
// (`web_search_url`: a SearXNG instance's JSON API, or a URL template with {query}) and returns
// at most 8 results as title, URL and snippet, fenced as untrusted text, about 600 tokens in
// all. harness loads it only when an engine is configured, and its worker may connect to the
// engine's host and nothing else (src/sandbox/grants/tool_grants.ts): the query goes nowhere else.

import { z } from "zod";
import { defineTool, ToolError } from "../src/tools/define_tool.ts";
import {
  formatResults,
  parseResults,
  searchUrl,
  statusProblem,
} from "../src/tools/builtin/web_search_engine.ts";

/** Redirects followed, each within the engine's host. */
const MAX_REDIRECTS = 3;
/** Bytes of an answer read (a results page is far smaller). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Asks the engine, following redirects on its own host only. */
async function ask(url: URL, signal: AbortSignal): Promise<Response> {
  let current = url;
  for (let hop = 0;; hop++) {
    const response = await fetch(current, {
      signal,
      redirect: "manual",
      headers: { "accept": "application/json, text/html;q=0.8", "user-agent": "harness/0.1" },
    });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || location === null) return response;
    await response.body?.cancel();
    const next = new URL(location, current);
    if (next.host !== url.host || hop === MAX_REDIRECTS) {
      throw new ToolError(
        "io_error",
        `The search engine at ${url.host} redirected to "${next.href}": web_search follows ` +
          `redirects within the engine's host only; set web_search_url to the final address`,
      );
    }
    current = next;
  }
}

async function readBody(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      break;
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk.subarray(0, Math.min(chunk.length, size - at)), at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}

export default defineTool({
  name: "web_search",
  description:
    "Search the web with the user's search engine; returns up to 8 results (title, URL, snippet). Read a result with download_url.",
  risk: "low",
  permissions: { net: true },
  parameters: z.object({
    query: z.string().min(1).max(400).describe("What to search for, as you would type it."),
  }),
  async run({ query }, ctx) {
    const engine = ctx.config?.engine;
    if (engine === undefined) {
      throw new ToolError(
        "internal_error",
        "No search engine is configured: set web_search_url (or --web-search-url)",
      );
    }
    const url = searchUrl(engine, query);
    let response: Response;
    try {
      response = await ask(url, ctx.signal);
    } catch (error) {
      if (
        error instanceof ToolError || error instanceof Deno.errors.NotCapable || ctx.signal.aborted
      ) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new ToolError(
        "io_error",
        `Cannot reach the search engine at ${url.host}: ${message}: check that it runs and ` +
          `that web_search_url points to it`,
      );
    }
    const problem = statusProblem(response.status, engine);
    if (problem !== undefined) {
      await response.body?.cancel();
      throw new ToolError(response.status === 404 ? "not_found" : "io_error", problem);
    }
    const results = parseResults(await readBody(response), {
      engine,
      contentType: response.headers.get("content-type") ?? "",
      requested: url,
    });
    if ("problem" in results) throw new ToolError("io_error", results.problem);
    return {
      output: formatResults(query, results, { host: url.host }),
      display: `Searched "${query.slice(0, 60)}": ${Math.min(results.length, 8)} results`,
    };
  },
});
