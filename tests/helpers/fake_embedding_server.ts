// A scripted embedding server for semantic search tests and benchmarks: Ollama's POST
// /api/embed and GET /api/tags, the OpenAI-compatible POST /v1/embeddings and GET /v1/models,
// and llama-server's POST /embedding. Vectors come from a deterministic embedding (hashed bag
// of words by default: real models give real semantics, this gives word overlap). It records
// every request, so tests can check what text left the machine.

import { hashedBagOfWords } from "./hashed_embedding.ts";

/** One request the server received. */
export interface EmbeddingRequest {
  path: string;
  /** The texts asked for. */
  texts: string[];
  model: string | undefined;
  authorization: string | null;
}

/** Options of {@linkcode embeddingRoutes} and {@linkcode startFakeEmbeddingServer}. */
export interface FakeEmbeddingOptions {
  /** Text to vector (default: hashed bag of words, 256 numbers). */
  embed?: (text: string) => number[];
  /** Names listed by /api/tags and /v1/models (default `["nomic-embed-text"]`). */
  models?: string[];
  /** false: /v1/embeddings answers 404, as a llama-server without the OpenAI route. */
  v1?: boolean;
  /** /embedding answers one vector per token (llama-server with --pooling none). */
  perToken?: boolean;
  /** Replaces the answer to an embedding request (hostile or broken servers). */
  answer?: (request: EmbeddingRequest) => Response | undefined;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * The embedding routes as a handler: a Response for the paths above, undefined for others (so
 * it can sit inside another fake server).
 */
export function embeddingRoutes(
  options: FakeEmbeddingOptions,
  requests: EmbeddingRequest[],
): (req: Request) => Promise<Response | undefined> {
  const embed = options.embed ?? ((text: string) => hashedBagOfWords(text));
  const models = options.models ?? ["nomic-embed-text"];
  return async (req) => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "");
    if (req.method === "GET" && path === "/api/tags") {
      return json(200, { models: models.map((name) => ({ name, model: name })) });
    }
    if (req.method === "GET" && path === "/v1/models") {
      return json(200, { object: "list", data: models.map((id) => ({ id, object: "model" })) });
    }
    if (req.method !== "POST" || !["/api/embed", "/v1/embeddings", "/embedding"].includes(path)) {
      return undefined;
    }
    const body = await req.json().catch(() => ({}));
    const raw = path === "/embedding" ? body.content : body.input;
    const texts: string[] = Array.isArray(raw) ? raw.map(String) : [String(raw)];
    const request = {
      path,
      texts,
      model: typeof body.model === "string" ? body.model : undefined,
      authorization: req.headers.get("authorization"),
    };
    requests.push(request);
    const scripted = options.answer?.(request);
    if (scripted) return scripted;
    if (path === "/v1/embeddings" && options.v1 === false) {
      return json(404, { error: { message: "File Not Found" } });
    }
    if (request.model !== undefined && !models.includes(request.model)) {
      return json(404, { error: `model "${request.model}" not found, try pulling it first` });
    }
    const vectors = texts.map(embed);
    if (path === "/api/embed") return json(200, { model: request.model, embeddings: vectors });
    if (path === "/v1/embeddings") {
      return json(200, {
        object: "list",
        data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
      });
    }
    return json(
      200,
      vectors.map((v, index) => ({
        index,
        // Per token: two rows whose mean is the vector.
        embedding: options.perToken ? [v.map((x) => x * 2), v.map(() => 0)] : [v],
      })),
    );
  };
}

/** A running fake embedding server. */
export interface FakeEmbeddingServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` (Ollama's root; add /v1 for the OpenAI-compatible routes). */
  readonly root: string;
  readonly requests: EmbeddingRequest[];
  /** Every text sent to be embedded, in order. */
  texts(): string[];
}

/**
 * Starts the server on a free loopback port.
 *
 * @param options The embedding, the models listed and the routes' behaviour.
 * @returns The server; dispose it with `await using`.
 */
export function startFakeEmbeddingServer(options: FakeEmbeddingOptions = {}): FakeEmbeddingServer {
  const requests: EmbeddingRequest[] = [];
  const routes = embeddingRoutes(options, requests);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    return await routes(req) ?? json(404, { error: "fake embedding server: no such route" });
  });
  return {
    root: `http://127.0.0.1:${server.addr.port}`,
    requests,
    texts: () => requests.flatMap((r) => r.texts),
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
