// Benchmark: a warm tool call through ToolHost (host -> worker -> host) against a raw
// postMessage round trip to a worker, measured in the same run; also worker start-up cost,
// and a one-shot `harness tool get_working_directory '{}'` process against an empty
// `deno run` script (and, with `--before DIR`, another checkout's main.ts), alternated.
// Run: deno run -A --unstable-worker-options bench/tool_roundtrip.ts [--runs N] [--before DIR]

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { discoverPlugins } from "../src/plugin_loader/load_plugins.ts";
import { emptyGrants } from "../src/sandbox/grants/grants.ts";
import { createToolHost } from "../src/sandbox/workers/tool_host.ts";

const CALLS = 1000;
const { values: flags } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "11" }, before: { type: "string" } },
});
const fixtures = fileURLToPath(new URL("../tests/fixtures/plugins/basic/", import.meta.url));

function stats(samples: number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p95: at(0.95) };
}

function us(ms: number): string {
  return `${(ms * 1000).toFixed(1)} us`;
}

/** A raw echo worker: the floor for any host -> worker -> host round trip. */
function rawEchoWorker(): { roundTrip(message: unknown): Promise<void>; close(): void } {
  const worker = new Worker(
    "data:application/javascript,self.onmessage=(e)=>self.postMessage(e.data)",
    { type: "module", deno: { permissions: "none" } },
  );
  return {
    roundTrip: (message) =>
      new Promise<void>((settle) => {
        worker.onmessage = () => settle();
        worker.postMessage(message);
      }),
    close: () => worker.terminate(),
  };
}

const workspace = await Deno.makeTempDir({ prefix: "harness_bench_" });
const { files } = await discoverPlugins({
  builtinDir: null,
  userDir: null,
  cwd: workspace,
  pluginDirs: [fixtures],
});
const echo = files.filter((f) => f.name === "echo");
let start = performance.now();
const { host, errors } = await createToolHost({
  grants: emptyGrants(),
  workspace,
  dataDir: join(workspace, ".harness"),
  pluginFiles: echo,
});
const loadMs = performance.now() - start;
if (errors.length > 0) throw new Error(JSON.stringify(errors));
start = performance.now();
await host.run("echo", { text: "cold" }, { state: {} });
const coldMs = performance.now() - start;

const raw = rawEchoWorker();
const toolSamples: number[] = [];
const rawSamples: number[] = [];
// Interleave batches so both see the same machine state.
for (let batch = -1; batch < CALLS / 100; batch++) {
  for (let i = 0; i < 100; i++) {
    let t = performance.now();
    const run = await host.run("echo", { text: "hi" }, { state: {} });
    if (batch >= 0) toolSamples.push(performance.now() - t);
    if (run.result.data !== "hi") throw new Error("unexpected result");
    t = performance.now();
    await raw.roundTrip({ type: "run", id: i, name: "echo", args: { text: "hi" }, state: {} });
    if (batch >= 0) rawSamples.push(performance.now() - t);
  }
}
raw.close();
await host.close();
await Deno.remove(workspace, { recursive: true });
const rawStats = stats(rawSamples);
const tool = stats(toolSamples);

console.log(`plugin load (loader worker, 1 plugin): ${loadMs.toFixed(1)} ms`);
console.log(`first call (worker creation + import): ${coldMs.toFixed(1)} ms`);
console.log(
  `raw postMessage round trip x${CALLS}: median ${us(rawStats.median)}, p95 ${us(rawStats.p95)}`,
);
console.log(`ToolHost.run() warm x${CALLS}: median ${us(tool.median)}, p95 ${us(tool.p95)}`);
console.log(`ratio (median): ${(tool.median / rawStats.median).toFixed(1)}x raw`);

/** Wall time of one process run, ms; throws when it fails. */
function timeProcess(args: string[], cwd: string): number {
  const start = performance.now();
  const out = new Deno.Command(Deno.execPath(), { args, cwd, stdout: "piped", stderr: "piped" })
    .outputSync();
  const ms = performance.now() - start;
  if (!out.success) throw new Error(`${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return ms;
}

/** `harness tool get_working_directory '{}'` of the checkout whose main.ts is `main`. */
function oneShotArgs(main: string): string[] {
  return [
    "run",
    "-A",
    "--no-prompt",
    "--unstable-worker-options",
    main,
    "tool",
    "get_working_directory",
    "{}",
  ];
}

const runs = Math.max(1, Number(flags.runs));
const empty = await Deno.makeTempFile({ suffix: ".ts" });
await Deno.writeTextFile(empty, "Deno.stdout.writeSync(new Uint8Array([10]));\n");
const subjects: { label: string; args: string[] }[] = [
  { label: "empty deno run (reference)", args: ["run", "-A", empty] },
  {
    label: "harness tool (this checkout)",
    args: oneShotArgs(fileURLToPath(new URL("../main.ts", import.meta.url))),
  },
  ...(flags.before
    ? [{
      label: `harness tool (${flags.before})`,
      args: oneShotArgs(join(flags.before, "main.ts")),
    }]
    : []),
];
const times = subjects.map(() => [] as number[]);
for (let round = -1; round < runs; round++) {
  subjects.forEach((subject, i) => {
    const ms = timeProcess(subject.args, Deno.cwd());
    if (round >= 0) times[i]!.push(ms);
  });
}
await Deno.remove(empty);
const reference = stats(times[0]!).median;
console.log(`\none-shot process, ${runs} runs alternating, medians:`);
subjects.forEach((subject, i) => {
  const { median, p95 } = stats(times[i]!);
  console.log(
    `${subject.label.padEnd(48)} ${median.toFixed(0).padStart(6)} ms (p95 ${p95.toFixed(0)}) ${
      (median / reference).toFixed(2)
    }x`,
  );
});
