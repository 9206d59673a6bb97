// What reading a server's facts loads (src/providers/server_probe/server_facts.ts, on every
// run's path through the vision check): the probes, not a provider. Before, one URL helper
// pulled in the whole Ollama provider, its stream parsers and watchdog (issue 45, item 1).

import { ok as assert } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { staticImports } from "../helpers/module_graph.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

Deno.test("server_facts.ts loads no provider module", async () => {
  const loaded = await staticImports(ROOT, "src/providers/server_probe/server_facts.ts");
  assert(loaded.has("src/providers/context_window.ts"), [...loaded].join("\n"));
  const providers = [...loaded].filter((path) =>
    /^src\/providers\/(ollama|openai_compat|anthropic|llama_cpp)\.ts$/.test(path) ||
    /stream/.test(path)
  );
  assert(providers.length === 0, `loaded: ${providers.join(", ")}`);
});
