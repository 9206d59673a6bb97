// Benchmark: the cost of checkpoints per turn on a large workspace (50,000 files by default),
// against a tool round trip measured in the same run. Whole turns run through the real
// conversation, the real OpenAI-compatible provider against a loopback server and the real
// sandbox worker, with and without checkpoints, interleaved: one-file turns (write_file) and
// command turns (run_command, confined when bubblewrap works). Apart from the turns: the
// first reading of the folder before a session's first command, and a command's cost with
// the watcher against a scan of the tree after each command (the fallback; what every turn
// cost before). Goals (issue 40): a turn's added cost under 50 ms on 50,000 files; a first
// reading over a second shows progress.
// Run: deno run -A --unstable-worker-options bench/checkpoint_bench.ts [--files N] [--turns N]

import { join } from "node:path";
import { parseArgs } from "node:util";
import { Conversation } from "../src/agent/conversation.ts";
import { createOpenAICompatProvider } from "../src/providers/openai_compat.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";
import { discoverPlugins } from "../src/plugin_loader/load_plugins.ts";
import { createToolHost } from "../src/sandbox/workers/tool_host.ts";
import { checkpointedStages, openCheckpoints } from "../src/app/run_checkpoints.ts";
import { ToolSet } from "../src/tools/tool_set.ts";
import { ShadowStore } from "../src/checkpoints/shadow_store.ts";
import { CommandBaseline } from "../src/checkpoints/command_baseline.ts";
import { reply, startFakeLlmServer } from "../tests/helpers/fake_llm_server.ts";

const flags = parseArgs({
  args: Deno.args,
  options: {
    files: { type: "string", default: "50000" },
    turns: { type: "string", default: "15" },
  },
});
const FILES = Number(flags.values.files);
const TURNS = Number(flags.values.turns);
const GOAL_MS = 50;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
}
const ms = (value: number) => `${value.toFixed(1)} ms`;
const stat = (samples: number[]) => `${ms(median(samples))} (p95 ${ms(p95(samples))})`;

/** FILES source-like files in folders of 100, and a .gitignore'd build folder. */
async function makeWorkspace(root: string): Promise<void> {
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, "src", `pkg_${Math.floor(i / 5000)}`, `module_${Math.floor(i / 100)}`);
    if (i % 100 === 0) await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(join(dir, `file_${i}.ts`), `export const value${i} = ${i};\n`);
  }
  await Deno.mkdir(join(root, "build"), { recursive: true });
  await Deno.writeTextFile(join(root, ".gitignore"), "build/\n");
}

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_ckpt_bench_" }));
const workspace = join(root, "work");
const data = join(root, "data");
await makeWorkspace(workspace);

/** A session's baseline of the workspace (its owner's index; the folder's shared one). */
async function openBaseline(watch: boolean, owner: string) {
  const store = await ShadowStore.open({
    git: "git",
    workspace,
    gitDir: join(data, watch ? "watching" : "scanning"),
    owner,
    maxFileBytes: 5 * 1024 * 1024,
    access: { mayRead: () => true, mayWrite: () => true },
  });
  return new CommandBaseline({ store, watch });
}

/** A command's cost on the baseline alone: the first reading, then per command. */
async function baselineCosts(watch: boolean) {
  const baseline = await openBaseline(watch, "first");
  let t = performance.now();
  await baseline.end(await baseline.begin());
  const first = performance.now() - t;
  const perCommand: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const path = join(workspace, "src", "pkg_0", "module_1", `file_${100 + (i % 10)}.ts`);
    t = performance.now();
    const window = await baseline.begin();
    await Deno.writeTextFile(path, `// command ${i}\n`);
    await baseline.end(window);
    perCommand.push(performance.now() - t);
  }
  await baseline.close();
  // A later session in the folder starts from the index the last one left.
  const next = await openBaseline(watch, "next");
  t = performance.now();
  await next.end(await next.begin());
  const later = performance.now() - t;
  await next.close();
  return { first, perCommand, later };
}

const watching = await baselineCosts(true);
const scanning = await baselineCosts(false);

// Whole turns through the conversation, with and without checkpoints.
const grantFlags = ["--allow-read=.", "--allow-write=.", "--allow-run"];
const parsed = parseGrantFlags(grantFlags, { cwd: workspace });
if (!parsed.ok) throw new Error("grants");
const grants = parsed.value.grants;
const { files } = await discoverPlugins({ userDir: null, cwd: workspace, pluginDirs: [] });
const { host } = await createToolHost({
  grants,
  workspace,
  dataDir: join(data, "outputs"),
  pluginFiles: files.filter((file) => ["write_file", "run_command"].includes(file.name)),
});
const allow = {
  approve: () => Promise.resolve({ decision: "allow" as const, by: "mode" as const }),
};
const recorder = { id: "bench", record() {}, end() {} };
const signal = new AbortController().signal;

/** TURNS turns of one kind with and without checkpoints, interleaved, on an instant server. */
async function turns(kind: "file" | "command") {
  const script = [];
  for (let i = 0; i < TURNS * 2 + 2; i++) {
    const call = kind === "file"
      ? reply().toolCall("write_file", { path: `out_${i % 5}.txt`, content: `turn ${i}\n` })
      : reply().toolCall("run_command", { command: `echo ${i} > out_${i % 5}.txt` });
    script.push(call, reply().text("Done."));
  }
  await using server = startFakeLlmServer(script);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const checkpoints = openCheckpoints(
    { checkpoints: true, checkpointMaxFileSize: 5 * 1024 * 1024 },
    { cwd: workspace, grants, dataDir: join(data, `turns_${kind}`) },
  )!;
  const checkpointed = checkpointedStages(checkpoints);
  const parts = (withCheckpoints: boolean) => ({
    provider,
    tools: { set: new ToolSet([host]) },
    approver: allow,
    recorder,
    limits: { maxIterations: 4, maxToolCalls: 4 },
    window: {},
    stages: withCheckpoints ? checkpointed : { call: [], turn: [] },
  });
  const plain = new Conversation(parts(false), { messages: [{ kind: "system", content: "s" }] });
  const checked = new Conversation(parts(true), { messages: [{ kind: "system", content: "s" }] });
  await plain.send("warm up", () => {}, signal);
  let t = performance.now();
  await checked.send("warm up", () => {}, signal);
  const firstTurn = performance.now() - t;
  const without: number[] = [];
  const withCheckpoints: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    t = performance.now();
    await plain.send(`turn ${i}`, () => {}, signal);
    without.push(performance.now() - t);
    t = performance.now();
    await checked.send(`turn ${i}`, () => {}, signal);
    withCheckpoints.push(performance.now() - t);
  }
  const records = checked.parts.stages.checkpoints?.records().length ?? 0;
  await checkpoints.close();
  return { without, withCheckpoints, firstTurn, records };
}

const fileTurns = await turns("file");
const commandTurns = await turns("command");
await host.close();
await Deno.remove(root, { recursive: true });

console.log(`workspace: ${FILES.toLocaleString("en-US")} files; ${TURNS} turns each; medians`);
console.log(
  `first reading before the folder's first command (every file hashed): ${ms(watching.first)} ` +
    `with the watcher starting, ${ms(scanning.first)} without (goal: progress shown past 1,000 ms)`,
);
console.log(
  `first reading of a later session (from the index the last one left): ${ms(watching.later)} ` +
    `with the watcher, ${ms(scanning.later)} without`,
);
console.log(
  `a command's checkpoint: ${stat(watching.perCommand)} watching, ${
    stat(scanning.perCommand)
  } scanning the tree (the reference): ${
    (median(scanning.perCommand) / Math.max(0.1, median(watching.perCommand))).toFixed(1)
  }x`,
);
for (const [name, run] of [["one-file turn", fileTurns], ["command turn", commandTurns]] as const) {
  const turn = median(run.without);
  const added = median(run.withCheckpoints) - turn;
  console.log(
    `${name}: ${ms(turn)} without checkpoints, ${ms(median(run.withCheckpoints))} with: ` +
      `+${ms(added)} (${
        (median(run.withCheckpoints) / turn).toFixed(2)
      }x; goal: under +${GOAL_MS} ms) ` +
      `[${run.records} records; first turn ${ms(run.firstTurn)}]`,
  );
}
