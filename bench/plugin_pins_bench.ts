// Benchmark: what pinning plugins costs (issue 26, item 3). Every plugin the model could
// rewrite is hashed (with its local imports) when the tool host lists it, and again by the
// worker right before each import. The built-in tools are loaded twice in the same run: with
// their folder outside the write grant (the reference: no pins) and inside it (pinned), and
// the listing and the first call (worker start, check, import) are timed for each.
// Run: deno run -A --unstable-worker-options bench/plugin_pins_bench.ts [--runs N] (default 5)

import { join } from "node:path";
import { parseArgs } from "node:util";
import { builtinPluginDir, discoverPlugins } from "../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";
import { createToolHost } from "../src/sandbox/workers/tool_host.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "5" } },
});
const RUNS = Math.max(1, Number(values.runs));

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_bench_" }));
await Deno.writeTextFile(join(workspace, "a.txt"), "hello\n");
const { files } = await discoverPlugins({ userDir: null, cwd: workspace, pluginDirs: [] });

async function once(pinned: boolean): Promise<{ list: number; first: number }> {
  // The write grant covers the built-in folder only in the pinned case.
  const flags = [`--allow-read=${workspace}`, `--allow-write=${workspace}`];
  if (pinned) flags.push(`--allow-write=${builtinPluginDir()}`);
  const parsed = parseGrantFlags(flags, { cwd: workspace });
  if (!parsed.ok) throw new Error("bad flags");
  let t = performance.now();
  const { host, errors } = await createToolHost({
    grants: parsed.value.grants,
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: files,
  });
  const list = performance.now() - t;
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  t = performance.now();
  const run = await host.run("read_file", { path: "a.txt" }, { state: {} });
  const first = performance.now() - t;
  if (!run.result.success) throw new Error(JSON.stringify(run.result));
  await host.close();
  return { list, first };
}

type Sample = { list: number; first: number };
const samples: { plain: Sample[]; pinned: Sample[] } = { plain: [], pinned: [] };
await once(false); // warm Deno's module cache
for (let i = 0; i < RUNS; i++) {
  samples.plain.push(await once(false));
  samples.pinned.push(await once(true));
}
await Deno.remove(workspace, { recursive: true });
for (const what of ["list", "first"] as const) {
  const plain = median(samples.plain.map((s) => s[what]));
  const pinned = median(samples.pinned.map((s) => s[what]));
  const label = what === "list" ? `list ${files.length} built-in tools` : "first read_file call";
  console.log(
    `${label}: pinned ${pinned.toFixed(1)} ms, reference (no pins) ${plain.toFixed(1)} ms, ` +
      `ratio ${(pinned / plain).toFixed(2)}x`,
  );
}
