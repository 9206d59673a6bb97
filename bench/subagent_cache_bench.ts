// Benchmark: do subagents cost their parent's cached prompt on a real llama-server? For each
// server named, each run is a parent turn (a long system prompt), the children of one reply
// started together through the slot scheduler (two by default, each its own long prompt), and
// the parent's next turn; the criterion is that this turn processes (`timings.prompt_n`) at
// most the tokens it added + 64. The same runs without the scheduler (no id_slot, no save and
// restore, the children sent at once) are the reference, in the same process.
// Runs only when pointed at servers; never in CI (no server there). With no weights to
// download, the tests' scripted GGUF serves (`--write-model` writes it), for example:
//   deno run -A bench/subagent_cache_bench.ts --write-model /tmp/scripted.gguf
//   llama-server -m /tmp/scripted.gguf -c 16384 --parallel 2 --port 8091 &
//   llama-server -m /tmp/scripted.gguf -c 8192 --parallel 1 --port 8092 --slot-save-path /tmp/s/ &
//   deno run -A bench/subagent_cache_bench.ts --base-url http://127.0.0.1:8091/v1 \
//     --base-url http://127.0.0.1:8092/v1 [--runs 10] [--children 2]

import { parseArgs } from "node:util";
import { createOpenAICompatProvider } from "../src/providers/openai_compat.ts";
import type { AssistantTurn } from "../src/providers/provider.ts";
import {
  llamaSlotActions,
  probeSlotLayout,
  type SlotLayout,
  slotRequestFields,
} from "../src/providers/server_slots.ts";
import { SlotScheduler } from "../src/providers/slot_scheduler.ts";
import type { Message } from "../src/messages.ts";
import { writeScriptedGguf } from "../tests/fixtures/make_scripted_gguf.ts";

const flags = parseArgs({
  args: Deno.args,
  options: {
    "base-url": { type: "string", multiple: true, default: [] },
    runs: { type: "string", default: "10" },
    children: { type: "string", default: "2" },
    "write-model": { type: "string" },
  },
});
const RUNS = Number(flags.values.runs);
const CHILDREN = Number(flags.values.children);
const ALLOWANCE = 64;

if (flags.values["write-model"]) {
  await writeScriptedGguf(flags.values["write-model"], {
    onUser: { text: "Noted." },
    onToolResult: { text: "Done." },
    contextLength: 16384,
  });
  console.log(`wrote ${flags.values["write-model"]}`);
  Deno.exit(0);
}
if (flags.values["base-url"].length === 0) {
  console.error(
    "error: No server to measure: pass --base-url http://127.0.0.1:PORT/v1 (llama-server), " +
      "once per server; see the header of bench/subagent_cache_bench.ts",
  );
  Deno.exit(2);
}

/** Differs per invocation, so no run finds an earlier invocation's prompt in a cache. */
const NONCE = crypto.randomUUID().slice(0, 6);

/** A different long text per run, so no run finds another's prompt in a cache. */
function filler(label: string, run: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(`${label}${NONCE}r${run}w${i}`);
  return out.join(" ");
}

function processed(turn: AssistantTurn): number {
  const usage = turn.usage;
  if (!usage) throw new Error(`the server sent no usage: ${JSON.stringify(turn.error)}`);
  return usage.promptTokens - (usage.reusedTokens ?? 0);
}

interface RunResult {
  /** Tokens the parent's next turn processed beyond those it added. */
  extra: number;
  added: number;
  /** Milliseconds from the children's start to the end of the parent's next turn. */
  ms: number;
}

async function oneRun(baseUrl: string, run: number, slots?: SlotScheduler): Promise<RunResult> {
  const parentSlot = slots?.parentSlot;
  const provider = (slot?: number) =>
    createOpenAICompatProvider({
      baseUrl,
      model: "bench",
      ...(slot === undefined ? {} : { extraBody: slotRequestFields(slot) }),
    });
  const parent = provider(parentSlot);
  const first: Message[] = [
    { kind: "system", content: `You plan. ${filler("parent", run, 400)}` },
    { kind: "user", content: "Ask the reviewer to look at src/." },
  ];
  const answer = await parent.complete({ messages: first, tools: [] });
  processed(answer);
  // The children of one reply start together; the scheduler queues those past its slots.
  const started = performance.now();
  await Promise.all(Array.from({ length: CHILDREN }, async (_, k) => {
    const lease = await slots?.acquire();
    try {
      const child = await provider(lease?.slot).complete({
        messages: [
          { kind: "system", content: `You review. ${filler(`child${k}_`, run, 300)}` },
          { kind: "user", content: `Review src/part${k}.ts.` },
        ],
        tools: [],
      });
      processed(child);
    } finally {
      await lease?.release();
    }
  }));
  const next = await parent.complete({
    messages: [
      ...first,
      { kind: "assistant", content: answer.text, data: {} },
      { kind: "user", content: "The reviewer found nothing. Summarise." },
    ],
    tools: [],
  });
  const cached = (answer.usage?.promptTokens ?? 0) + (answer.usage?.completionTokens ?? 0);
  const added = (next.usage?.promptTokens ?? 0) - cached;
  return { extra: processed(next) - added, added, ms: performance.now() - started };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function describe(layout: SlotLayout): string {
  return layout.kind === "slots" ? `${layout.total} slots` : layout.kind.replace("_", " ");
}

let failed = 0;
for (const baseUrl of flags.values["base-url"]) {
  const layout = await probeSlotLayout({ baseUrl });
  const notes: string[] = [];
  const slots = new SlotScheduler({
    layout,
    actions: llamaSlotActions({ baseUrl }),
    saveName: `harness-bench-${Deno.pid}.bin`,
    onNote: (note) => notes.push(note),
  });
  const ours: RunResult[] = [];
  const naive: RunResult[] = [];
  for (let run = 0; run < RUNS; run++) {
    ours.push(await oneRun(baseUrl, run, slots));
    naive.push(await oneRun(baseUrl, RUNS + run));
  }
  const within = ours.filter((r) => r.extra <= ALLOWANCE).length;
  const oursMedian = median(ours.map((r) => r.extra + r.added));
  const naiveMedian = median(naive.map((r) => r.extra + r.added));
  if (within < RUNS) failed++;
  console.log(`${baseUrl} (${describe(layout)})`);
  console.log(
    `  with the slot scheduler: ${within} of ${RUNS} runs within new tokens + ${ALLOWANCE}; ` +
      `the parent's next turn processed a median ${oursMedian} tokens (added ${
        median(ours.map((r) => r.added))
      }, extra ${median(ours.map((r) => r.extra))}); children and that turn took a median ${
        median(ours.map((r) => r.ms)).toFixed(0)
      } ms`,
  );
  console.log(
    `  without (reference):     ${
      naive.filter((r) => r.extra <= ALLOWANCE).length
    } of ${RUNS} within; median ${naiveMedian} tokens processed; ratio with/without ${
      (oursMedian / Math.max(1, naiveMedian)).toFixed(3)
    }; ${median(naive.map((r) => r.ms)).toFixed(0)} ms (time ratio ${
      (median(ours.map((r) => r.ms)) / Math.max(1, median(naive.map((r) => r.ms)))).toFixed(2)
    })`,
  );
  for (const note of notes) console.log(`  note: ${note}`);
}
Deno.exit(failed === 0 ? 0 : 1);
