// Benchmark: the cost of the command sandbox per command. run_command through the real tool
// host with `true` as the command, confined by bubblewrap and unconfined (command_sandbox
// "off"), interleaved in the same run; the same for a bare spawn of `sh -c true` with and
// without bwrap; and the start-up check (probeCommandSandbox) against one plain spawn.
// Run: deno run -A --unstable-worker-options bench/command_sandbox_bench.ts [--runs N]

import { join } from "node:path";
import { parseArgs } from "node:util";
import { discoverPlugins } from "../src/plugins/load_plugins.ts";
import { type CommandSandboxMode, spawnCommand } from "../src/sandbox/command_sandbox.ts";
import { probeCommandSandbox } from "../src/sandbox/command_sandbox_probe.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";
import { createToolHost, type ToolHost } from "../src/sandbox/tool_host.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "40" } } });
const RUNS = Number(values.runs);

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_bench_" }));
const parsed = parseGrantFlags(
  [`--allow-read=${workspace}`, `--allow-write=${workspace}`, "--allow-run"],
  { cwd: workspace },
);
if (!parsed.ok) throw new Error("bad flags");
const grants = parsed.value.grants;
const env = Deno.env.toObject();
const { files } = await discoverPlugins({ userDir: null, cwd: workspace, pluginDirs: [] });
const runCommand = files.filter((file) => file.name === "run_command");

async function hostFor(mode: CommandSandboxMode): Promise<ToolHost> {
  const { host, errors } = await createToolHost({
    grants,
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: runCommand,
    commandSandbox: probeCommandSandbox(mode, { grants, env }),
  });
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  return host;
}

const confinedSandbox = await probeCommandSandbox("required", { grants, env });
if (confinedSandbox.confinement.kind !== "bwrap") {
  console.error(`error: bubblewrap does not work here: ${JSON.stringify(confinedSandbox)}`);
  Deno.exit(1);
}
const offSandbox = await probeCommandSandbox("off", { grants, env });
const confined = await hostFor("required");
const unconfined = await hostFor("off");

async function toolCall(host: ToolHost): Promise<number> {
  const t = performance.now();
  const args = { command: "true", cwd: ".", timeout_ms: 10_000 };
  const run = await host.run("run_command", args, { state: {} });
  if (!String(run.result.data).endsWith("exit_code: 0")) {
    throw new Error(JSON.stringify(run.result));
  }
  return performance.now() - t;
}

async function bareSpawn(sandbox: typeof offSandbox): Promise<number> {
  const t = performance.now();
  const child = spawnCommand(sandbox, grants, {
    program: "sh",
    args: ["-c", "true"],
    cwd: workspace,
    stdout: "null",
    stderr: "null",
  });
  if (!(await child.status).success) throw new Error("sh -c true failed");
  return performance.now() - t;
}

const samples = {
  tool: [] as number[],
  toolOff: [] as number[],
  bwrap: [] as number[],
  sh: [] as number[],
};
// One warm-up round, then interleaved rounds so all four see the same machine state.
for (let round = -1; round < RUNS; round++) {
  const times = [
    await toolCall(confined),
    await toolCall(unconfined),
    await bareSpawn(confinedSandbox),
    await bareSpawn(offSandbox),
  ];
  if (round < 0) continue;
  samples.tool.push(times[0]!);
  samples.toolOff.push(times[1]!);
  samples.bwrap.push(times[2]!);
  samples.sh.push(times[3]!);
}
await confined.close();
await unconfined.close();

const probes: number[] = [];
const plain: number[] = [];
for (let i = 0; i < 10; i++) {
  let t = performance.now();
  await probeCommandSandbox("auto", { grants, env });
  probes.push(performance.now() - t);
  t = performance.now();
  await new Deno.Command("true", { stdout: "null", stderr: "null" }).output();
  plain.push(performance.now() - t);
}
await Deno.remove(workspace, { recursive: true });

const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
console.log(`run_command "true" through the tool host x${RUNS} (median):`);
console.log(`  confined (bubblewrap): ${ms(m.tool!)}   unconfined: ${ms(m.toolOff!)}`);
console.log(
  `  ratio: ${(m.tool! / m.toolOff!).toFixed(2)}x unconfined; wrapper cost ${
    ms(m.tool! - m.toolOff!)
  } per command`,
);
console.log(`bare spawn of sh -c true x${RUNS} (median):`);
console.log(
  `  in bwrap: ${ms(m.bwrap!)}   plain: ${ms(m.sh!)}   ratio ${(m.bwrap! / m.sh!).toFixed(2)}x`,
);
console.log(
  `start-up check (probeCommandSandbox) x10: median ${ms(median(probes))}, ${
    (median(probes) / median(plain)).toFixed(1)
  }x one plain spawn of true (${ms(median(plain))})`,
);
