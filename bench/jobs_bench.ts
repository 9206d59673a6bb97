// Benchmark: background jobs (issue 43) and a command's output (issue 40 item 9).
// 1. Process shapes (`&`, nohup, setsid, a double fork, a server holding a port) started as
//    a job through the real tool host: processes left after job_kill, after the session ends
//    (the host closes), and after kill -9 of the process that holds the host. Goal: 0 each.
// 2. The cost of a quiet job_output poll, in tokens (harness's count: 4 characters a token),
//    of its data and of the whole tool message (the JSON envelope every result has).
// 3. Peak resident size of `harness tool run_command` printing 67.5 MB, against the same
//    command printing nothing (and `--before DIR`, another checkout, in the same run).
// Run: deno run -A --unstable-worker-options bench/jobs_bench.ts [--before DIR]

import { parseArgs } from "node:util";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createToolHost, type ToolHost } from "../src/sandbox/workers/tool_host.ts";
import { discoverPlugins } from "../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";
import { toolResultMessage } from "../src/messages.ts";
import { DEFAULT_CHARS_PER_TOKEN } from "../src/providers/token_counter.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const { values } = parseArgs({ args: Deno.args, options: { before: { type: "string" } } });

/** Host pids of live processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      const line = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      if (line.includes(marker)) found.push(Number(entry.name));
    } catch { /* gone */ }
  }
  return found;
}

async function settle(ms: number): Promise<void> {
  await new Promise((done) => setTimeout(done, ms));
}

/** The shapes' command, and the markers that find each process. */
function shapes(): { command: string; markers: string[] } {
  const ids = [0, 1, 2, 3, 4].map(() =>
    `${200 + Math.floor(Math.random() * 800)}.${Date.now() % 1000}${
      Math.floor(Math.random() * 100)
    }`
  );
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  return {
    command: [
      `sleep ${ids[0]} &`,
      `nohup sleep ${ids[1]} > /dev/null 2>&1 &`,
      `setsid sleep ${ids[2]} > /dev/null 2>&1 &`,
      `(sleep ${ids[3]} > /dev/null 2>&1 &) &`,
      `python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1", ${port})); s.listen(); time.sleep(${
        ids[4]
      })' &`,
      "echo ready; wait",
    ].join("\n"),
    markers: [...ids.slice(0, 4).map((id) => `sleep ${id}`), `time.sleep(${ids[4]})`],
  };
}

async function waitRunning(markers: string[]): Promise<number> {
  for (let i = 0; i < 200; i++) {
    if (markers.every((m) => processesWith(m).length > 0)) break;
    await settle(50);
  }
  return markers.reduce((n, m) => n + processesWith(m).length, 0);
}

const left = (markers: string[]) => markers.reduce((n, m) => n + processesWith(m).length, 0);

async function openHost(workspace: string): Promise<ToolHost> {
  const grants = parseGrantFlags(["--allow-read=.", "--allow-write=.", "--allow-run"], {
    cwd: workspace,
  });
  if (!grants.ok) throw new Error("grants");
  const found = await discoverPlugins({ cwd: workspace, userDir: "/nonexistent", pluginDirs: [] });
  const names = new Set(["run_command", "job_output", "job_kill"]);
  const { host } = await createToolHost({
    grants: grants.value.grants,
    workspace,
    dataDir: join(workspace, ".data"),
    pluginFiles: found.files.filter((f) => f.origin === "builtin" && names.has(f.name)),
  });
  return host;
}

async function call(host: ToolHost, name: string, args: Record<string, unknown>) {
  const validated = await host.validate(name, args);
  if (!validated.ok) throw new Error(validated.error.join("\n"));
  return (await host.run(name, validated.value, { state: {} })).result;
}

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_jobs_bench_" }));
console.log("jobs: process shapes (&, nohup, setsid, double fork, a server on a port)");

// After job_kill.
let host = await openHost(workspace);
let s = shapes();
await call(host, "run_command", { command: s.command, background: true });
const started = await waitRunning(s.markers);
const killStart = performance.now();
await call(host, "job_kill", { id: "j1" });
const killMs = performance.now() - killStart;
console.log(
  `  after job_kill:     ${left(s.markers)} of ${started} processes left (job_kill took ${
    killMs.toFixed(0)
  } ms)`,
);

// After the session ends.
s = shapes();
await call(host, "run_command", { command: s.command, background: true });
const started2 = await waitRunning(s.markers);
const closeStart = performance.now();
await host.close();
const closeMs = performance.now() - closeStart;
console.log(
  `  after session end:  ${left(s.markers)} of ${started2} processes left (closing took ${
    closeMs.toFixed(0)
  } ms)`,
);

// After kill -9 of the process holding the host.
s = shapes();
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    "--unstable-worker-options",
    join(ROOT, "bench/jobs_host_child.ts"),
    workspace,
    s.command,
  ],
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const reader = child.stdout.getReader();
let said = "";
while (!said.includes("ready")) {
  const { value, done } = await reader.read();
  if (done) break;
  said += new TextDecoder().decode(value);
}
const started3 = await waitRunning(s.markers);
Deno.kill(child.pid, "SIGKILL");
await child.status;
let gone = left(s.markers);
for (let i = 0; i < 40 && gone > 0; i++) {
  await settle(50);
  gone = left(s.markers);
}
console.log(`  after kill -9:      ${gone} of ${started3} processes left (goal: 0 each)`);

// A quiet poll.
host = await openHost(workspace);
await call(host, "run_command", { command: "echo started; sleep 30", background: true });
await call(host, "job_output", { id: "j1", wait_seconds: 5 });
const quiet = await call(host, "job_output", { id: "j1" });
const message = toolResultMessage("call_1", "job_output", quiet).content;
const tokens = (text: string) => Math.ceil(text.length / DEFAULT_CHARS_PER_TOKEN);
console.log(`\njob_output with nothing new: "${quiet.data}"`);
console.log(
  `  data ${tokens(quiet.data ?? "")} tokens (goal <= 20); the whole tool message ${
    tokens(message)
  } tokens, the envelope of every result being ${tokens(message) - tokens(quiet.data ?? "")}`,
);
await host.close();
await Deno.remove(workspace, { recursive: true });

/** Peak resident size (MB) of `harness tool run_command` running `command` from checkout `dir`. */
async function peakMb(dir: string, command: string): Promise<number> {
  const ws = await Deno.makeTempDir({ prefix: "harness_peak_" });
  const proc = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-prompt",
      "--unstable-worker-options",
      "--v8-flags=--optimize-for-size",
      join(dir, "main.ts"),
      "tool",
      "run_command",
      JSON.stringify({ command }),
      "--allow-read=.",
      "--allow-run",
    ],
    cwd: ws,
    env: { XDG_DATA_HOME: join(ws, ".data") },
    stdout: "null",
    stderr: "null",
  }).spawn();
  let peak = 0;
  let done = false;
  void proc.status.then(() => done = true);
  while (!done) {
    try {
      const status = Deno.readTextFileSync(`/proc/${proc.pid}/status`);
      peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch { /* exited */ }
    await settle(20);
  }
  await Deno.remove(ws, { recursive: true });
  return peak / 1024;
}

const big = `yes ${"0123456789".repeat(7)} | head -c 67500000`;
const base = await peakMb(ROOT, "true");
const here = await peakMb(ROOT, big);
console.log(
  `\nrun_command printing 67.5 MB: peak ${here.toFixed(0)} MB (goal < 250), ${
    (here / base).toFixed(2)
  }x the ${base.toFixed(0)} MB of a command printing nothing`,
);
if (values.before) {
  const before = await peakMb(values.before, big);
  console.log(
    `  ${values.before}: peak ${before.toFixed(0)} MB (${
      (before / here).toFixed(2)
    }x this checkout's)`,
  );
}
