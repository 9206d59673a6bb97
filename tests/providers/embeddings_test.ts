// The embedding client against a scripted server: the three wire formats, answers of the
// wrong shape refused as errors (never thrown), and the setup: which server and model, the
// API key sent only to the model server's own origin, and no model looked for off the machine.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { createEmbedder } from "../../src/providers/embeddings/embedder.ts";
import { resolveEmbedder } from "../../src/providers/embeddings/embedding_setup.ts";
import { findEmbeddingModel } from "../../src/providers/embeddings/find_embedding_model.ts";
import { formatAgentError } from "../../src/errors.ts";
import { startFakeEmbeddingServer } from "../helpers/fake_embedding_server.ts";

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });

Deno.test("createEmbedder() reads Ollama's, the OpenAI-compatible and llama-server's answers alike", async () => {
  await using server = startFakeEmbeddingServer({ embed: (t) => [t.length, 1] });
  await using llama = startFakeEmbeddingServer({
    embed: (t) => [t.length, 1],
    v1: false,
    perToken: true,
  });
  const texts = ["a", "bbb"];
  for (
    const [api, baseUrl] of [
      ["ollama", server.root],
      ["openai", `${server.root}/v1`],
      ["openai", `${llama.root}/v1`],
    ] as const
  ) {
    const result = await createEmbedder({ api, baseUrl, model: "nomic-embed-text" }).embed(texts);
    assert(result.ok, JSON.stringify(result));
    assertEquals(result.value.map((v) => [...v]), [[1, 1], [3, 1]], baseUrl);
  }
  assertEquals(server.requests.map((r) => r.path), ["/api/embed", "/v1/embeddings"]);
  assertEquals(llama.requests.map((r) => r.path), ["/v1/embeddings", "/embedding"]);
});

Deno.test("createEmbedder() refuses answers of the wrong shape as errors", async () => {
  const answers: [unknown, RegExp][] = [
    [{ embeddings: [[1, 2]] }, /expected 2 embeddings, got 1/],
    [{ embeddings: [[1, 2], [1, 2, 3]] }, /different lengths \(2 and 3\)/],
    [{ embeddings: [[1, "x"], [1, 2]] }, /non-number/],
    [{ embeddings: [[], []] }, /not a list of 1 to 16,384 numbers/],
    [{ embeddings: [new Array(20_000).fill(0), new Array(20_000).fill(0)] }, /16,384/],
    [{ nothing: true }, /got none/],
  ];
  for (const [body, expected] of answers) {
    await using server = startFakeEmbeddingServer({ answer: () => json(body) });
    const result = await createEmbedder({ api: "ollama", baseUrl: server.root, model: "m" }).embed([
      "a",
      "b",
    ]);
    assert(!result.ok);
    match(formatAgentError(result.error), expected);
  }
  await using notJson = startFakeEmbeddingServer({ answer: () => new Response("<html>") });
  const broken = await createEmbedder({ api: "ollama", baseUrl: notJson.root, model: "m" }).embed([
    "a",
  ]);
  assert(!broken.ok);
  match(formatAgentError(broken.error), /the answer is not JSON/);
});

Deno.test("createEmbedder() says how to get a model the server does not have", async () => {
  await using server = startFakeEmbeddingServer({ models: ["nomic-embed-text"] });
  const result = await createEmbedder({ api: "ollama", baseUrl: server.root, model: "bge-m3" })
    .embed(["a"]);
  assert(!result.ok);
  assertEquals(result.error.kind, "provider_http");
  match(
    formatAgentError(result.error),
    /answered 404: .*Run "ollama pull bge-m3", or set "embedding_model"/,
  );
  const down = await createEmbedder({ api: "ollama", baseUrl: "http://127.0.0.3:9", model: "m" })
    .embed(["a"]);
  assert(!down.ok && down.error.kind === "provider_unreachable");
  match(formatAgentError(down.error), /is the server running\?/);
});

Deno.test("resolveEmbedder() finds an embedding model on the model server, or uses the one set", async () => {
  await using server = startFakeEmbeddingServer({
    models: ["qwen3:8b", "nomic-embed-text:latest"],
  });
  const found = await resolveEmbedder({ server: { baseUrl: server.root, provider: "ollama" } });
  assertEquals(found?.endpoint, {
    api: "ollama",
    baseUrl: server.root,
    model: "nomic-embed-text:latest",
  });
  const viaV1 = await resolveEmbedder({
    server: { baseUrl: `${server.root}/v1`, provider: "openai" },
  });
  assertEquals(viaV1?.endpoint.model, "nomic-embed-text:latest");
  // Ollama's provider may be given the /v1 URL; embeddings use its root.
  const set = await resolveEmbedder({
    embeddingModel: "bge-m3",
    server: { baseUrl: `${server.root}/v1`, provider: "ollama" },
  });
  assertEquals(set?.endpoint, { api: "ollama", baseUrl: server.root, model: "bge-m3" });
  await using chatOnly = startFakeEmbeddingServer({ models: ["qwen3:8b"] });
  assertEquals(
    await resolveEmbedder({ server: { baseUrl: chatOnly.root, provider: "ollama" } }),
    undefined,
  );
  assertEquals(
    await resolveEmbedder({
      embeddingModel: "off",
      server: { baseUrl: server.root, provider: "ollama" },
    }),
    undefined,
  );
  // An in-process model or the Anthropic API has no embeddings unless a server is named.
  assertEquals(
    await resolveEmbedder({ embeddingModel: "m", server: { provider: "llama.cpp" } }),
    undefined,
  );
  const named = await resolveEmbedder({
    embeddingModel: "m",
    embeddingBaseUrl: `${server.root}/v1`,
    server: { provider: "anthropic", baseUrl: "https://api.anthropic.com" },
  });
  assertEquals(named?.endpoint, { api: "openai", baseUrl: `${server.root}/v1`, model: "m" });
});

Deno.test("resolveEmbedder() sends the API key only to the model server's own origin", async () => {
  await using chat = startFakeEmbeddingServer();
  await using other = startFakeEmbeddingServer();
  const same = await resolveEmbedder({
    server: { baseUrl: `${chat.root}/v1`, provider: "openai" },
    apiKey: "sk-secret",
  });
  assert(same && (await same.embed(["x"])).ok);
  assertEquals(chat.requests.map((r) => r.authorization), ["Bearer sk-secret"]);
  const elsewhere = await resolveEmbedder({
    embeddingModel: "nomic-embed-text",
    embeddingBaseUrl: `${other.root}/v1`,
    server: { baseUrl: `${chat.root}/v1`, provider: "openai" },
    apiKey: "sk-secret",
  });
  assert(elsewhere && (await elsewhere.embed(["x"])).ok);
  assertEquals(other.requests.map((r) => r.authorization), [null]);
});

/** This machine's first address that is not loopback, if it has one. */
const LAN_ADDRESS = Deno.networkInterfaces()
  .find((i) => i.family === "IPv4" && !i.address.startsWith("127."))?.address;

Deno.test({
  name: "findEmbeddingModel() asks only a server on this machine's loopback",
  ignore: LAN_ADDRESS === undefined,
  async fn() {
    let asked = 0;
    // Listens on every interface: reachable as 127.0.0.1 and as the machine's LAN address.
    const server = Deno.serve({ hostname: "0.0.0.0", port: 0, onListen() {} }, () => {
      asked++;
      return json({ models: [{ name: "nomic-embed-text" }] });
    });
    try {
      const port = server.addr.port;
      assertEquals(
        await findEmbeddingModel("ollama", `http://127.0.0.1:${port}`),
        "nomic-embed-text",
      );
      assertEquals(
        await findEmbeddingModel("ollama", `http://localhost:${port}`),
        "nomic-embed-text",
      );
      assertEquals(asked, 2);
      // The same server by an address other machines could be: not asked.
      assertEquals(await findEmbeddingModel("ollama", `http://${LAN_ADDRESS}:${port}`), undefined);
      assertEquals(asked, 2);
    } finally {
      await server.shutdown();
    }
  },
});
