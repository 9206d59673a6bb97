// `harness tool` and `harness policy explain` (src/cli/commands/direct_commands.ts) load only what
// one call needs: no conversation, provider, session log (SQLite), checkpoints, hooks or MCP.
// Plugin authors run `harness tool` in a loop, so its start-up is theirs to wait for.

import { ok as assert } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { staticImports } from "../../helpers/module_graph.ts";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

Deno.test("harness tool's modules load no conversation, provider, session log, checkpoints, hooks or MCP", async () => {
  const loaded = await staticImports(ROOT, "src/cli/commands/direct_commands.ts");
  assert(loaded.has("src/app/open_workspace.ts"), [...loaded].join("\n"));
  const unwanted = [...loaded].filter((path) =>
    /^src\/(agent|sessions|checkpoints|hooks|mcp)\//.test(path) ||
    /^src\/providers\/(ollama|openai_compat|chat_client|token_counter|discover_server)/.test(
      path,
    ) ||
    path === "node:sqlite"
  );
  assert(unwanted.length === 0, `loaded at start: ${unwanted.join(", ")}`);
});
