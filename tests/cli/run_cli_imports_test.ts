// What a -p run loads before its request never includes a `node:` module: the first one
// starts Deno's Node compatibility layer (node:path cost about 10 ms, node:url 3 more, in an
// empty script), so harness's own modules take src/platform/paths.ts and
// src/platform/file_urls.ts instead (issue 45, item 1). node:sqlite (2 ms) came in through a
// formatting helper and the null session log, both moved out of the SQLite modules.

import { ok as assert } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { staticImports } from "../helpers/module_graph.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

// The modules a -p run imports (own_modules.ts loads each lazily): the command line, the
// settings, the conversation, the provider, and the tool host's side of the tools.
const PRINT_MODE_ENTRIES = [
  "src/cli/run_cli.ts",
  "src/cli/prompt_ahead.ts",
  "src/cli/run_conversation.ts",
  "src/app/open_provider.ts",
  "src/providers/openai_compat.ts",
];

for (const entry of PRINT_MODE_ENTRIES) {
  Deno.test(`${entry} loads no node: module`, async () => {
    const loaded = await staticImports(ROOT, entry);
    assert(loaded.has("src/platform/paths.ts") || entry.startsWith("src/providers/"), entry);
    const node = [...loaded].filter((s) => s.startsWith("node:"));
    assert(node.length === 0, `${entry} loads ${node.join(", ")}`);
  });
}
