// A loopback SearXNG for the web_search tests: `GET /search?q=...&format=json` answers with the
// JSON SearXNG's webapp.py writes (query, number_of_results, results with url, title, content,
// engine, engines, parsed_url, positions, score, category, then answers, corrections,
// infoboxes, suggestions and unresponsive_engines). It can answer as an instance whose JSON
// format is off (Flask's 403 page) or whose limiter stops the client (429), and records every
// request it receives.

/** How the fake instance is set up. */
export type SearxngMode = "json" | "json_disabled" | "limited";

/** A running fake SearXNG. */
export interface FakeSearxng extends AsyncDisposable {
  /** The base URL to configure (`http://127.0.0.1:PORT`). */
  readonly url: string;
  readonly port: number;
  /** The URLs requested, in order. */
  readonly requests: URL[];
  mode: SearxngMode;
}

/** One result as SearXNG stores it. */
function searxngResult(index: number, query: string, content: string) {
  const url = `https://site${index}.example.org/docs/${encodeURIComponent(query)}/${index}`;
  return {
    url,
    title: `Result ${index} about ${query}`,
    content,
    publishedDate: null,
    thumbnail: "",
    engine: index % 2 === 0 ? "duckduckgo" : "brave",
    template: "default.html",
    parsed_url: ["https", `site${index}.example.org`, `/docs/${query}/${index}`, "", "", ""],
    img_src: "",
    priority: "",
    engines: index % 2 === 0 ? ["duckduckgo", "google"] : ["brave"],
    positions: [index],
    score: 10 / index,
    category: "general",
  };
}

/**
 * Starts a fake SearXNG on 127.0.0.1.
 *
 * @param options How many results it finds (default 10), their snippets, and the mode.
 * @returns The server; dispose it to stop it.
 */
export function startFakeSearxng(
  options: { results?: number; snippet?: (index: number) => string; mode?: SearxngMode } = {},
): FakeSearxng {
  const requests: URL[] = [];
  const state = { mode: options.mode ?? "json" as SearxngMode };
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    const url = new URL(request.url);
    requests.push(url);
    if (url.pathname !== "/search") return new Response("Not Found", { status: 404 });
    if (state.mode === "limited") {
      return new Response("Too Many Requests", {
        status: 429,
        headers: { "content-type": "text/plain" },
      });
    }
    if (url.searchParams.get("format") === "json" && state.mode === "json_disabled") {
      return new Response(
        "<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n" +
          "<p>You don&#39;t have the permission to access the requested resource.</p>\n",
        { status: 403, headers: { "content-type": "text/html; charset=utf-8" } },
      );
    }
    const query = url.searchParams.get("q") ?? "";
    const count = options.results ?? 10;
    const results = Array.from(
      { length: count },
      (_, i) =>
        searxngResult(
          i + 1,
          query,
          options.snippet?.(i + 1) ?? `Snippet ${i + 1}: ${"words ".repeat(60)}`,
        ),
    );
    return Response.json({
      query,
      number_of_results: 0,
      results,
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [`${query} tutorial`],
      unresponsive_engines: [["google", "timeout"]],
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    port: server.addr.port,
    requests,
    get mode() {
      return state.mode;
    },
    set mode(mode: SearxngMode) {
      state.mode = mode;
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
