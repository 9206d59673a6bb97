// Benchmark: the cost of the command sandbox per command. run_command through the real tool
// host with `true` as the command, confined by bubblewrap and unconfined (command_sandbox
// "off"), interleaved in the same run; the same for a bare spawn of `sh -c true` with and
// without bwrap; the pieces issue 26 added, each against the spawn as it was before them
// (bubblewrap without them: commandLaunch + Deno.Command): closing inherited descriptors,
// read-only .git/.harness, the seccomp filter (with --allow-net), all of them; and the
// start-up check (probeCommandSandbox) against one plain spawn.
// Run: deno run -A --unstable-worker-options bench/command_sandbox_bench.ts [--runs N]

import { join } from "node:path";
import { parseArgs } from "node:util";
import { discoverPlugins } from "../src/plugin_loader/load_plugins.ts";
import {
  commandLaunch,
  type CommandSandbox,
  type CommandSandboxMode,
  spawnCommand,
} from "../src/sandbox/commands/command_sandbox.ts";
import { closeExtraFdsOnExec } from "../src/sandbox/commands/stdio_only.ts";
import { ProcessHost } from "../src/sandbox/processes/process_host.ts";
import type { SpawnPathRequest } from "./spawn_path_worker.ts";
import { probeCommandSandbox } from "../src/sandbox/commands/command_sandbox_probe.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";
import { createToolHost, type ToolHost } from "../src/sandbox/workers/tool_host.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "40" } } });
const RUNS = Number(values.runs);

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_bench_" }));
// A repository with project settings, so the read-only mounts have something to keep.
await Deno.mkdir(join(workspace, ".git", "hooks"), { recursive: true });
await Deno.mkdir(join(workspace, ".harness"));
const grantsFor = (flags: string[]) => {
  const parsed = parseGrantFlags(
    [`--allow-read=${workspace}`, `--allow-write=${workspace}`, "--allow-run", ...flags],
    { cwd: workspace },
  );
  if (!parsed.ok) throw new Error("bad flags");
  return parsed.value.grants;
};
const grants = grantsFor([]);
const netGrants = grantsFor(["--allow-net"]);
const env = Deno.env.toObject();
const { files } = await discoverPlugins({ userDir: null, cwd: workspace, pluginDirs: [] });
const runCommand = files.filter((file) => file.name === "run_command");

async function hostFor(mode: CommandSandboxMode): Promise<ToolHost> {
  const { host, errors } = await createToolHost({
    grants,
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: runCommand,
    commandSandbox: probeCommandSandbox(mode, { grants, env, workspace }),
  });
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  return host;
}

const confinedSandbox = await probeCommandSandbox("required", { grants, env, workspace });
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

function bareSpawn(sandbox: CommandSandbox): Promise<number> {
  return bareSpawnWith(sandbox, grants);
}

async function bareSpawnWith(sandbox: CommandSandbox, spawnGrants: typeof grants): Promise<number> {
  const t = performance.now();
  const child = spawnCommand(sandbox, spawnGrants, {
    program: "sh",
    args: ["-c", "true"],
    cwd: workspace,
    stdout: "null",
    stderr: "null",
  });
  if (!(await child.status).success) throw new Error("sh -c true failed");
  return performance.now() - t;
}

/**
 * The spawn as spawnCommand did it before issue 26 (the same Deno.Command options, spawn and
 * status): bubblewrap's arguments for `sandbox`, without the descriptor sweep.
 */
async function earlierSpawn(sandbox: CommandSandbox, spawnGrants = grants): Promise<number> {
  const t = performance.now();
  const launch = commandLaunch(sandbox, spawnGrants, {
    program: "sh",
    args: ["-c", "true"],
    cwd: workspace,
  });
  const child = new Deno.Command(launch.program, {
    args: launch.args,
    cwd: workspace,
    env: launch.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  if (!(await child.status).success) throw new Error("sh -c true failed");
  return performance.now() - t;
}

const netSandbox = await probeCommandSandbox("required", { grants: netGrants, env, workspace });
if (!netSandbox.seccomp || !("file" in netSandbox.seccomp)) {
  console.error(`error: the seccomp filter does not load here: ${JSON.stringify(netSandbox)}`);
  Deno.exit(1);
}
const { protection: _p, seccomp: _s, ...bare } = netSandbox;
const before: CommandSandbox = bare;
const withProtection: CommandSandbox = { ...bare, ...(_p ? { protection: _p } : {}) };
const withSeccomp: CommandSandbox = { ...bare, seccomp: _s };

// Where a process starts: in the tool worker as before (it held `run`), or on the host.
const pathWorker = new Worker(new URL("./spawn_path_worker.ts", import.meta.url), {
  type: "module",
});
const processHost = new ProcessHost({ sandbox: offSandbox, grants, run: true });
const hostPort = processHost.connect();
pathWorker.postMessage({ port: hostPort }, [hostPort]);
function spawnPath(via: SpawnPathRequest["via"], command: string): Promise<number> {
  return new Promise((settle) => {
    pathWorker.onmessage = (event: MessageEvent<number>) => settle(event.data);
    const request: SpawnPathRequest = { via, command, cwd: workspace, sandbox: offSandbox, grants };
    pathWorker.postMessage(request);
  });
}
const BIG = "seq 1 150000"; // 939 KB of output

const samples = {
  inWorker: [] as number[],
  viaHost: [] as number[],
  bigInWorker: [] as number[],
  bigViaHost: [] as number[],
  tool: [] as number[],
  toolOff: [] as number[],
  bwrap: [] as number[],
  sh: [] as number[],
  before: [] as number[],
  fds: [] as number[],
  readOnly: [] as number[],
  netBefore: [] as number[],
  seccomp: [] as number[],
  all: [] as number[],
  sweep: [] as number[],
};
// One warm-up round, then interleaved rounds so every variant sees the same machine state.
for (let round = -1; round < RUNS; round++) {
  const t = performance.now();
  closeExtraFdsOnExec();
  const sweep = performance.now() - t;
  const times = {
    inWorker: await spawnPath("worker", "true"),
    viaHost: await spawnPath("host", "true"),
    bigInWorker: await spawnPath("worker", BIG),
    bigViaHost: await spawnPath("host", BIG),
    tool: await toolCall(confined),
    toolOff: await toolCall(unconfined),
    bwrap: await bareSpawn(confinedSandbox),
    sh: await bareSpawn(offSandbox),
    before: await earlierSpawn(before),
    fds: sweep + await earlierSpawn(before),
    readOnly: await earlierSpawn(withProtection),
    netBefore: await earlierSpawn(before, netGrants),
    seccomp: await earlierSpawn(withSeccomp, netGrants),
    all: await bareSpawnWith(netSandbox, netGrants),
    sweep,
  };
  if (round < 0) continue;
  for (const [key, value] of Object.entries(times)) {
    samples[key as keyof typeof samples].push(value);
  }
}
await confined.close();
await unconfined.close();
pathWorker.terminate();
processHost.close();

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
console.log(`where ctx.spawn starts a process (unconfined, all output read) x${RUNS} (median):`);
for (
  const [what, worker, host] of [["true", m.inWorker!, m.viaHost!], [
    BIG,
    m.bigInWorker!,
    m.bigViaHost!,
  ]] as const
) {
  console.log(
    `  ${what.padEnd(14)} in the worker (before): ${ms(worker)}   through the host: ${ms(host)}   ${
      (host / worker).toFixed(2)
    }x, ${ms(host - worker)} more`,
  );
}
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
const piece = (label: string, value: number, base: number) =>
  console.log(
    `  ${label.padEnd(34)} ${ms(value)}   ${(value / base).toFixed(2)}x before, ${
      ms(value - base)
    } more`,
  );
console.log(`spawn of sh -c true in bubblewrap x${RUNS} (median), each new piece against before:`);
console.log(`  ${"before (no new piece)".padEnd(34)} ${ms(m.before!)}`);
piece("+ close inherited descriptors", m.fds!, m.before!);
piece("+ read-only .git and .harness", m.readOnly!, m.before!);
console.log(`  ${"before, with --allow-net".padEnd(34)} ${ms(m.netBefore!)}`);
piece("+ seccomp filter (--allow-net)", m.seccomp!, m.netBefore!);
piece("all of them (spawnCommand, net)", m.all!, m.netBefore!);
console.log(`  descriptor sweep alone: ${(m.sweep! * 1000).toFixed(0)} µs`);
console.log(
  `start-up check (probeCommandSandbox) x10: median ${ms(median(probes))}, ${
    (median(probes) / median(plain)).toFixed(1)
  }x one plain spawn of true (${ms(median(plain))})`,
);
