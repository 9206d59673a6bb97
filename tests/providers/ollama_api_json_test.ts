import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { ollamaApiJson } from "../../src/providers/ollama/api_json.ts";

/** A loopback server that records each request and answers with `answer`. */
function serve(answer: (path: string) => Response) {
  const seen: { method: string; path: string; type: string | null; body: string }[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    seen.push({
      method: req.method,
      path,
      type: req.headers.get("content-type"),
      body: await req.text(),
    });
    return answer(path);
  });
  return {
    root: `http://127.0.0.1:${server.addr.port}`,
    seen,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("ollamaApiJson() GETs without a body and POSTs a body as JSON", async () => {
  await using server = serve(() => Response.json({ models: [] }));
  const tags = await ollamaApiJson(server.root, { path: "/api/tags", model: "m" });
  const show = await ollamaApiJson(server.root, {
    path: "/api/show",
    model: "m",
    body: { model: "m" },
  });
  assertEquals([tags, show], [{ ok: true, value: { models: [] } }, {
    ok: true,
    value: { models: [] },
  }]);
  assertEquals(server.seen, [
    { method: "GET", path: "/api/tags", type: null, body: "" },
    { method: "POST", path: "/api/show", type: "application/json", body: '{"model":"m"}' },
  ]);
});

Deno.test("ollamaApiJson() names the model to pull for a 404 and reads a body that is not JSON as undefined", async () => {
  await using server = serve((path) =>
    path === "/api/show"
      ? Response.json({ error: 'model "qwen9" not found' }, { status: 404 })
      : new Response("<html>")
  );
  const missing = await ollamaApiJson(server.root, { path: "/api/show", model: "qwen9", body: {} });
  if (missing.ok || missing.error.kind !== "provider_http") {
    throw new Error(JSON.stringify(missing));
  }
  assertEquals([missing.error.status, missing.error.message.includes("ollama pull qwen9")], [
    404,
    true,
  ]);
  assertEquals(await ollamaApiJson(server.root, { path: "/", model: "m" }), {
    ok: true,
    value: undefined,
  });
});

Deno.test("ollamaApiJson() stops when its signal aborts", async () => {
  await using server = serve(() => Response.json({}));
  const controller = new AbortController();
  controller.abort();
  const aborted = await ollamaApiJson(server.root, {
    path: "/api/tags",
    model: "m",
    signal: controller.signal,
  });
  assertEquals([aborted.ok, server.seen.length], [false, 0]);
});
