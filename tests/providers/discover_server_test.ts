// Finding a local server: the first answering server in preference order wins, a web server
// that is not a model server does not count, and with none the error says how to start each.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { discoverServer, type ServerCandidate } from "../../src/providers/discover_server.ts";
import { loadSettings } from "../../src/config/settings.ts";
import { startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { startFakeOllama } from "../helpers/fake_ollama_server.ts";

async function closedPort(): Promise<number> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(),
  );
  const port = server.addr.port;
  await server.shutdown();
  return port;
}

const candidate = (name: string, baseUrl: string, provider: "ollama" | "openai") =>
  ({ name, baseUrl, provider, start: `start ${name}` }) satisfies ServerCandidate;

Deno.test("discoverServer() prefers Ollama, then takes the first OpenAI-style server that answers", async () => {
  await using ollama = startFakeOllama();
  await using llama = startFakeLlmServer([]);
  const down = `http://127.0.0.1:${await closedPort()}`;
  const both = await discoverServer([
    candidate("Ollama", ollama.url, "ollama"),
    candidate("llama-server", llama.baseUrl, "openai"),
  ]);
  assert(both.ok);
  assertEquals(both.value.name, "Ollama");
  const second = await discoverServer([
    candidate("Ollama", down, "ollama"),
    candidate("llama-server", llama.baseUrl, "openai"),
  ]);
  assert(second.ok);
  assertEquals(second.value.baseUrl, llama.baseUrl);
});

Deno.test("discoverServer() does not take a web server that is not a model server", async () => {
  const web = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("<html>hello</html>", { headers: { "content-type": "text/html" } }),
  );
  try {
    const found = await discoverServer([
      candidate("llama-server", `http://127.0.0.1:${web.addr.port}/v1`, "openai"),
    ]);
    assert(!found.ok);
  } finally {
    await web.shutdown();
  }
});

Deno.test("discoverServer() says how to start each server when none answers", async () => {
  const down = `http://127.0.0.1:${await closedPort()}`;
  const found = await discoverServer([
    candidate("Ollama", down, "ollama"),
    candidate("vLLM", `${down}/v1`, "openai"),
  ]);
  assert(!found.ok && found.error.kind === "provider_unreachable");
  assert(found.error.cause.includes("\n  start Ollama\n  start vLLM"), found.error.cause);
});

Deno.test("loadSettings() looks for a server only when none is configured", async () => {
  const cwd = await Deno.makeTempDir();
  const env = (name: string) => name === "HOME" ? cwd : undefined;
  try {
    const none = await loadSettings({}, { cwd, env });
    assert(none.ok && none.value.discover === true);
    const given = await loadSettings({ baseUrl: "http://127.0.0.1:8080/v1" }, { cwd, env });
    assert(given.ok && given.value.discover === undefined);
    await Deno.mkdir(`${cwd}/.config/harness`, { recursive: true });
    await Deno.writeTextFile(
      `${cwd}/.config/harness/config.jsonc`,
      '{ "base_url": "http://h:1/v1" }',
    );
    const configured = await loadSettings({}, { cwd, env });
    assert(configured.ok && configured.value.discover === undefined);
    // An untrusted project config's base_url is ignored, so it does not stop the search.
    await Deno.remove(`${cwd}/.config/harness/config.jsonc`);
    await Deno.mkdir(`${cwd}/.harness`);
    await Deno.writeTextFile(`${cwd}/.harness/config.jsonc`, '{ "base_url": "http://h:1/v1" }');
    const untrusted = await loadSettings({}, {
      cwd,
      env,
      trust: { io: { write: () => {}, readLine: () => Promise.resolve(null) } },
    });
    assert(untrusted.ok && untrusted.value.discover === true);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
