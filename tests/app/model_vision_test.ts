// Whether the model can see, as the server says: Ollama's capabilities, llama-server's
// modalities, and the vision setting over both.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { modelVision } from "../../src/app/model_vision.ts";
import { startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { startFakeLlmServer } from "../helpers/fake_llm_server.ts";

Deno.test("modelVision() asks Ollama's capabilities and llama-server's modalities", async () => {
  await using ollama = startFakeOllama({
    models: [
      { name: "gemma3", capabilities: ["completion", "vision"] },
      { name: "qwen3", capabilities: ["completion", "tools"] },
    ],
  });
  const ask = (model: string) =>
    modelVision({ vision: "auto" }, { provider: "ollama", model, baseUrl: ollama.url })();
  assertEquals((await ask("gemma3")).sees, true);
  const blind = await ask("qwen3");
  assertEquals(blind.sees, false);
  assert(blind.why?.includes('Ollama does not list "vision"'));
  await using llama = startFakeLlmServer([], {
    routes: {
      "/props": { modalities: { vision: false }, default_generation_settings: { n_ctx: 4096 } },
    },
  });
  const text = await modelVision({ vision: "auto" }, {
    provider: "openai",
    model: "m",
    baseUrl: llama.baseUrl,
  })();
  assertEquals(text.sees, false);
  assert(text.why?.includes("--mmproj"), text.why);
  const forced = await modelVision({ vision: true }, {
    provider: "openai",
    model: "m",
    baseUrl: llama.baseUrl,
  })();
  assertEquals(forced.sees, true);
});
