// The context window as each server states it, read from loopback servers that answer with
// the servers' real JSON shapes.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { probeContextWindow } from "../../src/providers/context_window.ts";
import { startFakeLlmServer } from "../helpers/fake_llm_server.ts";

Deno.test("probeContextWindow() reads llama-server's per-slot n_ctx from /props", async () => {
  // llama-server -c 16384 -np 4: each slot, so each request, gets 4096.
  await using server = startFakeLlmServer([], {
    routes: {
      "/props": {
        default_generation_settings: { n_ctx: 4096, params: { n_predict: -1 } },
        total_slots: 4,
        model_path: "/models/qwen3-4b-q4_k_m.gguf",
        chat_template: "{{ messages }}",
        build_info: "b6000-abc",
      },
    },
  });
  const window = await probeContextWindow(server.baseUrl, "fake-model");
  assertEquals(window?.tokens, 4096);
  assertEquals(window?.server, "llama-server");
  assertEquals(window?.source, "llama-server /props n_ctx (per slot, 4 slots)");
});

Deno.test("probeContextWindow() reads vLLM's max_model_len from /v1/models", async () => {
  await using server = startFakeLlmServer([], {
    routes: {
      "/v1/models": {
        object: "list",
        data: [{
          id: "Qwen/Qwen3-8B",
          object: "model",
          created: 1700000000,
          owned_by: "vllm",
          root: "Qwen/Qwen3-8B",
          parent: null,
          max_model_len: 32768,
          permission: [],
        }],
      },
    },
  });
  const window = await probeContextWindow(server.baseUrl, "Qwen/Qwen3-8B");
  assertEquals(window, {
    tokens: 32768,
    server: "vllm",
    source: "vLLM /v1/models max_model_len",
  });
});

Deno.test("probeContextWindow() reads LM Studio's loaded_context_length of the model in use", async () => {
  await using server = startFakeLlmServer([], {
    routes: {
      "/api/v0/models": {
        object: "list",
        data: [
          {
            id: "qwen3-4b",
            object: "model",
            type: "llm",
            publisher: "qwen",
            arch: "qwen3",
            compatibility_type: "gguf",
            quantization: "Q4_K_M",
            state: "loaded",
            max_context_length: 40960,
            loaded_context_length: 4096,
          },
          {
            id: "gemma-3-12b",
            type: "vlm",
            state: "not-loaded",
            max_context_length: 131072,
          },
        ],
      },
    },
  });
  const window = await probeContextWindow(server.baseUrl, "qwen3-4b");
  assertEquals(window?.tokens, 4096);
  assertEquals(window?.server, "lm-studio");
});

Deno.test("probeContextWindow() reads the window Ollama loaded the model with from /api/ps", async () => {
  await using server = startFakeLlmServer([], {
    routes: {
      "/api/ps": {
        models: [{
          name: "qwen3:4b",
          model: "qwen3:4b",
          size: 3_600_000_000,
          digest: "e55aed6fe643",
          details: { family: "qwen3", parameter_size: "4.0B", quantization_level: "Q4_K_M" },
          expires_at: "2026-11-25T03:30:00Z",
          size_vram: 3_600_000_000,
          context_length: 4096,
        }],
      },
    },
  });
  const window = await probeContextWindow(server.baseUrl, "qwen3:4b");
  assertEquals(window?.tokens, 4096);
  assertEquals(window?.server, "ollama");
});

Deno.test("probeContextWindow() returns undefined when no endpoint states a window", async () => {
  await using server = startFakeLlmServer([]);
  assertEquals(await probeContextWindow(server.baseUrl, "fake-model"), undefined);
});

Deno.test("probeContextWindow() answers when llama-server's /props does, not after a probe that hangs", async () => {
  // A proxy in front of llama-server that never answers paths it does not know.
  const hung: (() => void)[] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      if (new URL(request.url).pathname === "/props") {
        return Response.json({ default_generation_settings: { n_ctx: 8192 }, total_slots: 1 });
      }
      return new Promise<Response>((resolve) => hung.push(() => resolve(new Response("late"))));
    },
  );
  const started = performance.now();
  const window = await probeContextWindow(`http://127.0.0.1:${server.addr.port}/v1`, "m", {
    timeoutMs: 20_000,
  });
  const took = performance.now() - started;
  for (const answer of hung) answer();
  assertEquals(window?.tokens, 8192);
  // The other probes would have held it for their whole 20 s timeout.
  if (took > 10_000) throw new Error(`the probe took ${Math.round(took)} ms`);
});
