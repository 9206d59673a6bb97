// Benchmark: context spent per request. Prints the token cost of the built-in tool schemas in
// full and compact form, what --allow-read=. leaves offered, and the tokens per request of one
// long conversation (30 turns, each reading a 20 KB file) as main sent it over a /v1 server
// (every message and every schema, the window unknown) against now (fitted to the 8,192-token
// window assumed when the server states none, with the tools the sandbox can run, compact).
// Tokens are estimated at four characters each, the rule harness itself uses.
// Run: deno run -A --unstable-worker-options bench/context_bench.ts

import { join } from "node:path";
import { discoverPlugins } from "../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";
import { createToolHost } from "../src/sandbox/workers/tool_host.ts";
import { COMPACT_SCHEMA_BELOW, offerTools } from "../src/sandbox/grants/tool_offer.ts";
import { ToolSet } from "../src/tools/tool_set.ts";
import { toToolSchema } from "../src/tools/tool_entry.ts";
import { schemaTokens } from "../src/agent/context_report.ts";
import { estimateTokens } from "../src/agent/context_budget.ts";
import { fit } from "../src/agent/fit_request.ts";
import {
  makeToolResult,
  type Message,
  toolCallMessage,
  toolResultMessage,
} from "../src/messages.ts";

const workspace = await Deno.makeTempDir({ prefix: "harness_bench_" });
const { files } = await discoverPlugins({ userDir: null, cwd: workspace, pluginDirs: [] });
const grantsFor = (flags: string[]) => {
  const parsed = parseGrantFlags(flags, { cwd: workspace });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value.grants;
};
const { host, errors } = await createToolHost({
  grants: grantsFor(["--allow-all"]),
  workspace,
  dataDir: join(workspace, ".harness"),
  pluginFiles: files,
});
if (errors.length > 0) throw new Error(JSON.stringify(errors));

const set = new ToolSet([host]);
const offered = (flags: string[], window: number) =>
  offerTools({ set, grants: grantsFor(flags), workspace }, window).schemas;
const all = host.list().map(toToolSchema);
const full = schemaTokens(all);
const compact = schemaTokens(offered(["--allow-all"], COMPACT_SCHEMA_BELOW - 1));
const readOnly = offered(["--allow-read=."], COMPACT_SCHEMA_BELOW - 1);
console.log(`tool schemas, ${all.length} built-in tools:`);
console.log(
  `  full form     ${String(full).padStart(6)} tokens (${JSON.stringify(all).length} chars)`,
);
console.log(
  `  compact form  ${String(compact).padStart(6)} tokens  (${(compact / full).toFixed(2)}x full)`,
);
console.log(
  `  --allow-read=. compact: ${readOnly.length} tools, ${schemaTokens(readOnly)} tokens ` +
    `(${(schemaTokens(readOnly) / full).toFixed(2)}x full)`,
);
for (const window of [4096, 8192, 16384, 32768]) {
  console.log(
    `  share of a ${window}-token window: full ${(full / window * 100).toFixed(0)}%, ` +
      `compact ${(compact / window * 100).toFixed(0)}%`,
  );
}

// One conversation, as the model would see it after each turn.
const WINDOW = 8192;
const file = Array.from({ length: 400 }, (_, i) => `line ${i}: ${"lorem ipsum ".repeat(4)}`)
  .join("\n");
const messages: Message[] = [{ kind: "system", content: "x".repeat(2400) }];
const before: number[] = [];
const after: number[] = [];
const afterSchemas = schemaTokens(readOnly);
for (let turn = 1; turn <= 30; turn++) {
  messages.push({ kind: "user", content: `Read part ${turn} and tell me about it.` });
  messages.push({ kind: "assistant", content: "", data: {} });
  messages.push(toolCallMessage({ id: `c${turn}`, name: "read_file", arguments: '{"path":"a"}' }));
  messages.push(toolResultMessage(`c${turn}`, "read_file", makeToolResult({ data: file })));
  before.push(estimateTokens(messages) + full);
  const fitted = fit(messages, WINDOW, { fixedTokens: afterSchemas });
  after.push(estimateTokens(fitted.messages) + afterSchemas);
  messages.push({ kind: "assistant", content: `Part ${turn} lists 400 lines.`, data: {} });
}
console.log(`\ntokens per request, 30 turns reading a ${file.length}-char file each:`);
console.log("  turn   before (main, /v1)   after (fitted, offered, compact)   ratio");
for (const turn of [1, 2, 6, 10, 30]) {
  const b = before[turn - 1]!;
  const a = after[turn - 1]!;
  console.log(
    `  ${String(turn).padStart(4)}   ${String(b).padStart(18)}   ${String(a).padStart(32)}   ${
      (a / b).toFixed(2)
    }x`,
  );
}
const over = before.findIndex((tokens) => tokens > WINDOW) + 1;
console.log(
  `  before: over the ${WINDOW}-token window from turn ${over}; after: largest request ` +
    `${Math.max(...after)} tokens (window minus answer room: ${WINDOW - 2048})`,
);
await host.close();
await Deno.remove(workspace, { recursive: true });
