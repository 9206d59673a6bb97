// Benchmark: the cost of checkpoints per turn on a 10,000-file workspace, against a tool round
// trip measured in the same run: one user message whose model turn calls write_file (the real
// OpenAI-compatible provider against a loopback server, the real sandbox worker) and then
// answers, once with an instant server (the floor) and once paced like a small local model
// (a stated stand-in: 400 ms before the first byte, 40 frames 20 ms apart per answer). The
// same turns run with and without checkpoints, interleaved (the plain conversation's writes are
// changes the checked one finds at its next turn, as a user's edits would be); the time a call
// waits for the snapshot before the turn's first change and the wait at the turn's end are
// timed apart (the rest runs while the model works).
// Run: deno run -A --unstable-worker-options bench/checkpoint_bench.ts [--files N] [--turns N]

import { join } from "node:path";
import { parseArgs } from "node:util";
import { Conversation } from "../src/agent/conversation.ts";
import { createOpenAICompatProvider } from "../src/providers/openai_compat.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";
import { discoverPlugins } from "../src/plugins/load_plugins.ts";
import { createToolHost } from "../src/sandbox/tool_host.ts";
import { ToolSet } from "../src/tools/tool_set.ts";
import { checkpointStages } from "../src/app/run_checkpoints.ts";
import { CheckpointRepo } from "../src/checkpoints/checkpoint_repo.ts";
import { TurnCheckpoints } from "../src/checkpoints/turn_checkpoints.ts";
import { reply, startFakeLlmServer } from "../tests/helpers/fake_llm_server.ts";

const flags = parseArgs({
  args: Deno.args,
  options: {
    files: { type: "string", default: "10000" },
    turns: { type: "string", default: "20" },
  },
});
const FILES = Number(flags.values.files);
const TURNS = Number(flags.values.turns);

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
}
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** A workspace of FILES source-like files in 100 folders, with a .gitignore'd build folder. */
async function makeWorkspace(root: string): Promise<void> {
  const perFolder = Math.ceil(FILES / 100);
  for (let folder = 0; folder < 100; folder++) {
    const dir = join(root, "src", `module_${folder}`);
    await Deno.mkdir(dir, { recursive: true });
    for (let file = 0; file < perFolder && folder * perFolder + file < FILES; file++) {
      const body = `export const value${file} = ${folder * perFolder + file};\n`.repeat(20);
      await Deno.writeTextFile(join(dir, `file_${file}.ts`), body);
    }
  }
  await Deno.mkdir(join(root, "build"), { recursive: true });
  await Deno.writeTextFile(join(root, ".gitignore"), "build/\n");
}

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_ckpt_bench_" }));
const workspace = join(root, "work");
const data = join(root, "data");
await makeWorkspace(workspace);

// The snapshots alone: the first (every file hashed), then one with nothing changed, then one
// after a turn's worth of change (two files).
const repo = await CheckpointRepo.open({
  git: "git",
  workspace,
  gitDir: join(data, "alone"),
  owner: "bench",
  maxFileBytes: 5 * 1024 * 1024,
});
let t = performance.now();
await repo.snapshot();
const firstMs = performance.now() - t;
const unchanged: number[] = [];
const changed: number[] = [];
for (let i = 0; i < TURNS; i++) {
  t = performance.now();
  await repo.snapshot();
  unchanged.push(performance.now() - t);
  await Deno.writeTextFile(join(workspace, "src", "module_1", "file_1.ts"), `// ${i}\n`);
  await Deno.writeTextFile(join(workspace, "notes.md"), `turn ${i}\n`);
  t = performance.now();
  await repo.snapshot();
  changed.push(performance.now() - t);
}
await repo.close();

// Whole turns through the conversation, with and without checkpoints.
const grants = parseGrantFlags(["--allow-read=.", "--allow-write=."], { cwd: workspace });
if (!grants.ok) throw new Error("grants");
const { files } = await discoverPlugins({ userDir: null, cwd: workspace, pluginDirs: [] });
const { host } = await createToolHost({
  grants: grants.value.grants,
  workspace,
  dataDir: join(data, "outputs"),
  pluginFiles: files.filter((file) => file.name === "write_file"),
});
const allow = {
  approve: () => Promise.resolve({ decision: "allow" as const, by: "mode" as const }),
};
const recorder = { id: "bench", record() {}, end() {} };
const signal = new AbortController().signal;

/** TurnCheckpoints that time what a turn waits for: the first change's snapshot, the end. */
class TimedCheckpoints extends TurnCheckpoints {
  readonly before: number[] = [];
  readonly end_: number[] = [];
  override async beforeChange(): Promise<void> {
    const t = performance.now();
    await super.beforeChange();
    this.before.push(performance.now() - t);
  }
  override async end() {
    const t = performance.now();
    const record = await super.end();
    this.end_.push(performance.now() - t);
    return record;
  }
}

/** Runs TURNS turns with and without checkpoints against a server paced `pace`. */
async function turns(pace: { delay: number; frames: number; every: number } | undefined) {
  const script = [];
  for (let i = 0; i < TURNS * 2 + 2; i++) {
    const call = reply().toolCall("write_file", {
      path: `out_${i % 5}.txt`,
      content: `turn ${i}\n`,
    });
    const text = reply().text("Done, the file is written.", { chunks: pace?.frames ?? 1 });
    if (pace) {
      call.delay(pace.delay).pace(pace.every);
      text.delay(pace.delay).pace(pace.every);
    }
    script.push(call, text);
  }
  await using server = startFakeLlmServer(script);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  // As app/run_checkpoints.ts opens them, timed.
  const timed = new TimedCheckpoints({
    open: () =>
      CheckpointRepo.open({
        git: "git",
        workspace,
        gitDir: join(data, "turns"),
        owner: pace ? "paced" : "floor",
        maxFileBytes: 5 * 1024 * 1024,
      }),
    maxFileBytes: 5 * 1024 * 1024,
  });
  const gated = checkpointStages(timed);
  const checkpointed = { call: [gated.gate], turn: [gated.turn], checkpoints: timed };
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
  await checked.send("warm up", () => {}, signal);
  timed.before.length = 0;
  timed.end_.length = 0;
  const without: number[] = [];
  const withCheckpoints: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    let t = performance.now();
    await plain.send(`turn ${i}`, () => {}, signal);
    without.push(performance.now() - t);
    t = performance.now();
    await checked.send(`turn ${i}`, () => {}, signal);
    withCheckpoints.push(performance.now() - t);
  }
  await timed.close();
  return { without, withCheckpoints, before: timed.before, end: timed.end_ };
}

const floor = await turns(undefined);
const paced = await turns({ delay: 400, frames: 40, every: 20 });
await host.close();
await Deno.remove(root, { recursive: true });

console.log(`workspace: ${FILES} files; ${TURNS} turns each; medians (p95)`);
console.log(`first snapshot (every file hashed, once per workspace): ${ms(firstMs)}`);
console.log(`snapshot, nothing changed: ${ms(median(unchanged))} (${ms(p95(unchanged))})`);
console.log(`snapshot, 2 files changed: ${ms(median(changed))} (${ms(p95(changed))})`);
for (const [name, run] of [["instant server (floor)", floor], ["paced server", paced]] as const) {
  const turn = median(run.without);
  const added = median(run.withCheckpoints) - turn;
  const waited = median(run.before) + median(run.end);
  console.log(`${name}: a tool round trip ${ms(turn)} (${ms(p95(run.without))})`);
  console.log(
    `  with checkpoints ${ms(median(run.withCheckpoints))}: +${ms(added)} = ` +
      `${(added / turn * 100).toFixed(1)}% of the round trip`,
  );
  console.log(
    `  waited: before the first change ${ms(median(run.before))} (${ms(p95(run.before))}), ` +
      `at the end ${ms(median(run.end))} (${ms(p95(run.end))}); together ` +
      `${(waited / turn * 100).toFixed(1)}% of the round trip`,
  );
}
