// Benchmark: the time of a model turn with N read-only tool calls of 200 ms each, run one after
// another (the same wait in a tool that declares no permissions, which the loop never runs
// together) against concurrently (a tool that declares only `read`), in the same run.
// Run: deno run -A --unstable-worker-options bench/parallel_calls_bench.ts

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runAgentLoop } from "../src/agent/agent_loop.ts";
import { answer, callTools, ScriptedProvider } from "../src/providers/scripted.ts";
import { discoverPlugins } from "../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";
import { createToolHost } from "../src/sandbox/workers/tool_host.ts";
import { ToolSet } from "../src/tools/tool_set.ts";
import type { Approver } from "../src/permissions/approver.ts";

const MS = 200;
const fixtures = fileURLToPath(new URL("../tests/fixtures/plugins/concurrent/", import.meta.url));
const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_bench_" }));
const { files } = await discoverPlugins({
  builtinDir: null,
  userDir: null,
  cwd: workspace,
  pluginDirs: [fixtures],
});
const parsed = parseGrantFlags(["--allow-read=."], { cwd: workspace });
if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
const { host, errors } = await createToolHost({
  grants: parsed.value.grants,
  workspace,
  dataDir: join(workspace, ".harness"),
  pluginFiles: files,
});
if (errors.length > 0) throw new Error(JSON.stringify(errors));
const allow: Approver = { approve: () => Promise.resolve({ decision: "allow", by: "mode" }) };

async function turn(tool: string, n: number): Promise<number> {
  const calls = Array.from(
    { length: n },
    (_, i) => ({ name: tool, args: { label: `${i}`, ms: MS } }),
  );
  const provider = new ScriptedProvider([callTools(calls), answer("done")]);
  const started = performance.now();
  await runAgentLoop([], "go", {
    provider,
    tools: { set: new ToolSet([host]) },
    approver: allow,
    sink: () => {},
    limits: { maxIterations: 5, maxToolCalls: 15 },
    state: {},
  }, new AbortController().signal);
  return performance.now() - started;
}

await turn("slow_read", 1);
await turn("slow_note", 1);
console.log(`turn time with N read-only calls of ${MS} ms each:`);
console.log("     N   sequential   concurrent   ratio");
for (const n of [1, 2, 4, 8]) {
  const sequential = await turn("slow_note", n);
  const concurrent = await turn("slow_read", n);
  console.log(
    `  ${String(n).padStart(4)}   ${sequential.toFixed(0).padStart(7)} ms   ${
      concurrent.toFixed(0).padStart(7)
    } ms   ${(concurrent / sequential).toFixed(2)}x`,
  );
}
await host.close();
await Deno.remove(workspace, { recursive: true });
