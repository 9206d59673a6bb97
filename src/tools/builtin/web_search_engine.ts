// What web_search asks its engine and what it makes of the answer. An engine is a SearXNG base
// URL (its JSON API: `/search?q=...&format=json`) or a URL template with `{query}` that answers
// JSON (a list of results, or an object holding one under a usual name) or HTML (the result
// links are read out of the page). At most 8 results go to the model, fenced as untrusted text
// and cut to about 600 tokens in all.

import { decodeEntities } from "./html_text.ts";
import { fenceUntrusted } from "./untrusted_text.ts";

/** One search result. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** At most this many results reach the model. */
export const MAX_RESULTS = 8;
/** The whole output stays under about 600 tokens (at 3.5 characters a token). */
export const MAX_OUTPUT_CHARS = 2100;

/** Whether the engine is a SearXNG instance or a URL template. */
export function engineKind(engine: string): "searxng" | "template" {
  return engine.includes("{query}") ? "template" : "searxng";
}

/**
 * The URL one search requests.
 *
 * @param engine The `web_search_url` setting.
 * @param query What to search for.
 * @returns SearXNG's `/search?q=...&format=json` under the base URL, or the template filled in.
 *
 * @example
 * ```ts
 * import { searchUrl } from "./web_search_engine.ts";
 * if (searchUrl("http://h:8888/sx", "a b").href !== "http://h:8888/sx/search?q=a+b&format=json") {
 *   throw new Error();
 * }
 * if (searchUrl("https://s.example/?q={query}", "a&b").href !== "https://s.example/?q=a%26b") {
 *   throw new Error();
 * }
 * ```
 */
export function searchUrl(engine: string, query: string): URL {
  if (engineKind(engine) === "template") {
    return new URL(engine.replaceAll("{query}", encodeURIComponent(query)));
  }
  const base = new URL(engine.endsWith("/") ? engine : `${engine}/`);
  const url = new URL("search", base);
  url.searchParams.set("q", query);
  url.searchParams.set("format", "json");
  return url;
}

/**
 * What an HTTP status the engine answered means, in words with what to do; undefined for 2xx.
 *
 * @param status The status.
 * @param engine The `web_search_url` setting.
 * @returns The message for the model (and the user, who configured the engine).
 */
export function statusProblem(status: number, engine: string): string | undefined {
  if (status >= 200 && status < 300) return undefined;
  const host = new URL(engine.replaceAll("{query}", "q")).host;
  const searxng = engineKind(engine) === "searxng";
  if (status === 403) {
    return searxng
      ? `The SearXNG instance at ${host} refused the search (HTTP 403): its JSON API is off. ` +
        `The instance must enable the json format: add "json" to search.formats in its ` +
        `settings.yml and restart it`
      : `The search engine at ${host} refused the search (HTTP 403): check the URL template ` +
        `(web_search_url) and any key it needs`;
  }
  if (status === 429) {
    return `The search engine at ${host} is limiting requests (HTTP 429: too many searches)` +
      (searxng
        ? `: SearXNG's limiter blocks bursts and clients it takes for bots; wait a minute, or ` +
          `turn server.limiter off in settings.yml for an instance only you use`
        : ": wait a minute before searching again");
  }
  return `The search engine at ${host} answered HTTP ${status}`;
}

/**
 * Results from an engine's answer: SearXNG's JSON, a template's JSON or a template's HTML.
 *
 * @param body The response text.
 * @param context The engine, the response's content type and the URL asked.
 * @returns The results, or a message saying why none could be read.
 */
export function parseResults(
  body: string,
  context: { engine: string; contentType: string; requested: URL },
): SearchResult[] | { problem: string } {
  const looksJson = /json/i.test(context.contentType) || /^\s*[[{]/.test(body);
  if (!looksJson) {
    if (engineKind(context.engine) === "searxng") {
      return {
        problem: `The SearXNG instance at ${context.requested.host} answered with a page, not ` +
          `JSON: the instance must enable the json format (add "json" to search.formats in ` +
          `its settings.yml)`,
      };
    }
    return htmlResults(body, context.requested);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return {
      problem: `The search engine at ${context.requested.host} sent JSON that does not parse ` +
        `(${(error as Error).message})`,
    };
  }
  return jsonResults(value);
}

/** The usual places a JSON search API puts its results, most common first. */
const RESULT_LISTS = ["results", "items", "organic_results", "organic", "data", "hits", "value"];

/** Results from JSON: SearXNG's `results`, or any usual list of title/url/snippet objects. */
function jsonResults(value: unknown): SearchResult[] {
  const list = findResultList(value) ?? [];
  return list.flatMap((item) => {
    const entry = typeof item === "object" && item !== null ? item as Record<string, unknown> : {};
    const url = firstString(entry, ["url", "link", "href", "uri"]);
    if (url === undefined || !/^https?:\/\//i.test(url)) return [];
    return [{
      title: clean(firstString(entry, ["title", "name", "heading"]) ?? url),
      url,
      snippet: clean(
        firstString(entry, ["content", "snippet", "description", "body", "summary", "text"]) ??
          "",
      ),
    }];
  });
}

function findResultList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  for (const key of RESULT_LISTS) {
    if (Array.isArray(record[key])) return record[key] as unknown[];
  }
  // One level down (Brave's { web: { results } }).
  for (const inner of Object.values(record)) {
    if (typeof inner !== "object" || inner === null || Array.isArray(inner)) continue;
    for (const key of RESULT_LISTS) {
      const list = (inner as Record<string, unknown>)[key];
      if (Array.isArray(list)) return list;
    }
  }
  return undefined;
}

function firstString(entry: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = entry[key];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return undefined;
}

/**
 * Results from an HTML results page: links to other sites, each with the text up to the next
 * one as its snippet (DuckDuckGo's redirect links are followed to their target).
 */
function htmlResults(html: string, requested: URL): SearchResult[] {
  const body = html.replace(/<(script|style|noscript|svg|head)\b[\s\S]*?<\/\1>/gi, " ");
  const anchors = [
    ...body.matchAll(/<a\b[^>]*?\bhref\s*=\s*("([^"]*)"|'([^']*)')[^>]*>([\s\S]*?)<\/a>/gi),
  ];
  const found: (SearchResult & { end: number; next: number })[] = [];
  const seen = new Set<string>();
  for (const match of anchors) {
    const url = resultTarget(decodeEntities(match[2] ?? match[3] ?? ""), requested);
    const title = clean(stripTags(match[4] ?? ""));
    if (url === undefined || title.length < 3 || seen.has(url)) continue;
    seen.add(url);
    const previous = found.at(-1);
    if (previous) previous.next = match.index!;
    found.push({ title, url, snippet: "", end: match.index! + match[0].length, next: body.length });
  }
  return found.map(({ title, url, end, next }) => ({
    title,
    url,
    snippet: clean(stripTags(body.slice(end, Math.min(next, end + 2000)))).slice(0, 400),
  }));
}

/** A link's target when it leads off the engine's site (unwrapping redirect links). */
function resultTarget(href: string, requested: URL): string | undefined {
  let url: URL;
  try {
    url = new URL(href, requested);
  } catch {
    return undefined;
  }
  // DuckDuckGo's redirect links (on its own host, whichever serves the page), or the engine's.
  const wrapped = url.searchParams.get("uddg") ??
    (url.host === requested.host ? url.searchParams.get("url") ?? url.searchParams.get("q") : null);
  if (wrapped && /^https?:\/\//i.test(wrapped)) return resultTarget(wrapped, requested);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return url.host === requested.host ? undefined : url.href;
}

function stripTags(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, " "));
}

function clean(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The tool's output: a line on what was searched, then at most 8 results (title, URL,
 * snippet) fenced as untrusted text, the whole within {@linkcode MAX_OUTPUT_CHARS}: snippets
 * share the room left by titles and URLs.
 *
 * @param query What was searched.
 * @param results The results, in the engine's order.
 * @param options The engine's host (named in the fence) and the fence's marker (tests).
 * @returns The text for the model.
 *
 * @example
 * ```ts
 * import { formatResults } from "./web_search_engine.ts";
 * const out = formatResults("deno", [{ title: "Deno", url: "https://deno.com", snippet: "A runtime." }], { host: "h" });
 * if (!out.includes("1. Deno\n   https://deno.com\n   A runtime.")) throw new Error(out);
 * ```
 */
export function formatResults(
  query: string,
  results: readonly SearchResult[],
  options: { host: string; marker?: string },
): string {
  const shown = results.slice(0, MAX_RESULTS).filter((result) => result.url.length <= 300);
  const head = `${shown.length === 0 ? "No results" : `${shown.length} results`} for "${
    clean(query).slice(0, 200)
  }" (${
    results.length > MAX_RESULTS ? `the first ${MAX_RESULTS}; ` : ""
  }read a page with download_url):`;
  const fenceRoom = fenceUntrusted("", options.host, options.marker ?? "000000000000").length;
  const lines = shown.map((result, index) => ({
    top: `${index + 1}. ${result.title.slice(0, 120)}\n   ${result.url}`,
    snippet: result.snippet,
  }));
  const fixed = head.length + 1 + fenceRoom +
    lines.reduce((sum, line) => sum + line.top.length + 1 + 4, 0);
  const share = lines.length === 0
    ? 0
    : Math.max(0, Math.floor((MAX_OUTPUT_CHARS - fixed) / lines.length));
  const text = lines.map(({ top, snippet }) => {
    if (snippet === "" || share < 20) return top;
    const cut = snippet.length > share ? `${snippet.slice(0, share - 1).trimEnd()}…` : snippet;
    return `${top}\n   ${cut}`;
  }).join("\n");
  return `${head}\n${fenceUntrusted(text || "(nothing found)", options.host, options.marker)}`;
}
