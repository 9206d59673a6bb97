// Usage analytics benchmark: `harness stats` over a session database of 2,000 sessions written
// by the real session writer (SessionLogWriter.record of the loop's events: messages with
// usage, permission decisions, tool starts and results of realistic sizes, limit and loop-guard
// stops, spread over 60 days). Times queryUsageStats (all time, --since 7d, one session) and
// the text report, against two references measured on the same database in the same run:
// `harness sessions list` (querySessions) and reading every session's events (queryEvents),
// which is what aggregating in JavaScript would have to do.
// Run: deno run -A bench/stats_bench.ts [sessions]   (default 2000)
//      STATS_BENCH_DB=/tmp/s.db keeps the generated database there and reuses it next time.

import { join } from "node:path";
import type { LoopEvent } from "../src/agent/loop_events.ts";
import {
  makeToolResult,
  toolCallMessage,
  type ToolErrorType,
  toolResultMessage,
} from "../src/messages.ts";
import { openSessionStore } from "../src/sessions/open_session_store.ts";
import { queryEvents, querySessions } from "../src/sessions/query_sessions.ts";
import { openDatabase } from "../src/sessions/schema.ts";
import { queryUsageStats } from "../src/sessions/usage_stats.ts";
import { formatUsageStats } from "../src/ui/stats_report.ts";
import { createStyle } from "../src/ui/style.ts";

const SESSIONS = Number(Deno.args[0] ?? 2000);
const DAY = 86_400_000;

/** A deterministic pseudo-random sequence (mulberry32), so every run writes the same log. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOOLS: { name: string; bytes: number; errors: ToolErrorType[]; asks: boolean }[] = [
  { name: "read_file", bytes: 6000, errors: ["not_found"], asks: false },
  { name: "grep_search", bytes: 2500, errors: ["validation_failed"], asks: false },
  { name: "edit_file", bytes: 300, errors: ["not_found", "validation_failed"], asks: true },
  { name: "run_command", bytes: 3000, errors: ["timeout", "io_error"], asks: true },
  { name: "write_file", bytes: 120, errors: ["permission_denied"], asks: true },
  { name: "code_map", bytes: 4000, errors: [], asks: false },
  { name: "ls", bytes: 800, errors: ["not_found"], asks: false },
];

/** Writes one session through the real writer; returns its event count. */
function writeSession(
  store: ReturnType<typeof open>,
  rand: () => number,
  clock: { now: number },
  index: number,
): number {
  const writer = store.startSession({
    model: ["qwen3:8b", "qwen3:4b", "llama3.1:8b"][index % 3]!,
    baseUrl: "http://127.0.0.1:11434",
    cwd: `/work/project${index % 7}`,
    grants: "--allow-read=.",
    provider: "ollama",
  });
  if (!writer.ok) throw new Error(JSON.stringify(writer.error));
  let events = 0;
  const record = (event: LoopEvent, ms = 50) => {
    clock.now += Math.round(rand() * ms);
    writer.value.record(event);
    events++;
  };
  let prompt = 3000;
  const turns = 1 + Math.floor(rand() * 5);
  for (let turn = 0; turn < turns; turn++) {
    record({
      type: "message",
      message: { kind: "user", content: `Request ${turn}: fix the build` },
    });
    const iterations = 1 + Math.floor(rand() * 4);
    let stop = "answered";
    for (let it = 0; it < iterations; it++) {
      const last = it === iterations - 1;
      const calls = last ? 0 : 1 + Math.floor(rand() * 3);
      prompt += 400 + Math.floor(rand() * 3000);
      const usage = {
        promptTokens: prompt,
        completionTokens: 20 + Math.floor(rand() * 400),
        // Older sessions (the first third) were logged before the cache counters.
        ...(index > SESSIONS / 3 ? { reusedTokens: Math.floor(prompt * 0.8) } : {}),
      };
      record({
        type: "message",
        message: { kind: "assistant", content: "Working on it.", data: { usage } },
      }, 8000);
      for (let c = 0; c < calls; c++) {
        const tool = TOOLS[Math.floor(rand() * TOOLS.length)]!;
        const id = `call_${turn}_${it}_${c}`;
        record({
          type: "message",
          message: toolCallMessage({ id, name: tool.name, arguments: '{"path":"src/a.ts"}' }),
        });
        const byUser = tool.asks && rand() < 0.7;
        const allow = !byUser || rand() < 0.85;
        record({
          type: "permission_decided",
          callId: id,
          name: tool.name,
          decision: { decision: allow ? "allow" : "deny", by: byUser ? "user" : "policy" },
        }, byUser ? 12_000 : 5);
        let errorType: ToolErrorType = "permission_denied";
        if (allow) {
          record({ type: "tool_started", callId: id, name: tool.name, args: {} });
          const failed = tool.errors.length > 0 && rand() < 0.15;
          errorType = failed ? tool.errors[Math.floor(rand() * tool.errors.length)]! : "none";
        }
        const ms = allow ? Math.round(rand() * (tool.name === "run_command" ? 4000 : 80)) : 0;
        clock.now += ms;
        const result = makeToolResult({
          data: errorType === "none" ? "x".repeat(Math.floor(tool.bytes * (0.5 + rand()))) : null,
          errorType,
          errorMessage: errorType,
          executionTimeMs: ms,
          now: new Date(clock.now),
        });
        record({ type: "message", message: toolResultMessage(id, tool.name, result) });
      }
      if (!last && rand() < 0.02) {
        record({ type: "limit_reached", limit: "iterations", max: 10 });
        stop = "iteration_limit";
        break;
      }
    }
    if (stop === "answered" && rand() < 0.02) stop = "error";
    record({
      type: "done",
      stopReason: stop as "answered",
      text: "",
      ...(stop === "error"
        ? {
          errorMessage:
            'Stopped: the model called "edit_file" 3 times with the same failing arguments',
        }
        : {}),
    });
  }
  writer.value.end();
  return events + 2;
}

function open(path: string, clock: () => Date) {
  const store = openSessionStore({ path, synchronous: "NORMAL", clock });
  if (!store.ok) throw new Error(JSON.stringify(store.error));
  return store.value;
}

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(runs: number, body: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    body();
    times.push(performance.now() - started);
  }
  return median(times);
}

const kept = Deno.env.get("STATS_BENCH_DB");
const dir = await Deno.makeTempDir({ prefix: "harness_stats_bench_" });
try {
  const path = kept ?? join(dir, "harness.db");
  const end = Date.now();
  if (!kept || !(await Deno.stat(path).catch(() => undefined))) {
    const clock = { now: end - 60 * DAY };
    const store = open(path, () => new Date(clock.now));
    const rand = random(33);
    let events = 0;
    const writeStarted = performance.now();
    for (let i = 0; i < SESSIONS; i++) {
      clock.now = end - 60 * DAY + Math.floor((i / SESSIONS) * 60 * DAY);
      events += writeSession(store, rand, clock, i);
    }
    const writeSeconds = (performance.now() - writeStarted) / 1000;
    store.close();
    const size = (await Deno.stat(path)).size;
    console.log(
      `Wrote ${SESSIONS} sessions, ${events} events (${(size / 1048576).toFixed(1)} MiB) ` +
        `through the session writer in ${writeSeconds.toFixed(1)} s`,
    );
  }

  const db = openDatabase(path);
  if (!db.ok) throw new Error(JSON.stringify(db.error));
  const runs = 5;
  const since = new Date(end - 7 * DAY).toISOString();
  const someSession = querySessions(db.value, { limit: 1 })[0]!.id;
  // A cold first run (the pages come from the OS cache, not SQLite's) is reported apart.
  const coldStarted = performance.now();
  const stats = queryUsageStats(db.value);
  const cold = performance.now() - coldStarted;
  const all = time(runs, () => queryUsageStats(db.value));
  const week = time(runs, () => queryUsageStats(db.value, { since }));
  const one = time(runs, () => queryUsageStats(db.value, { sessionId: someSession }));
  const report = time(runs, () => formatUsageStats(queryUsageStats(db.value), createStyle(false)));
  const list = time(runs, () => querySessions(db.value));
  const readAll = time(1, () => {
    for (const s of querySessions(db.value)) queryEvents(db.value, s.id);
  });
  db.value.close();

  const ms = (n: number) => `${n.toFixed(0)} ms`;
  console.log(`\nqueryUsageStats, median of ${runs} (first run ${ms(cold)}):`);
  console.log(
    `  all time              ${
      ms(all).padStart(8)
    }   ${stats.tools.length} tools, ${stats.sessions} sessions`,
  );
  console.log(`  --since 7d            ${ms(week).padStart(8)}`);
  console.log(`  one session (/stats)  ${ms(one).padStart(8)}`);
  console.log(`  with the text report  ${ms(report).padStart(8)}`);
  console.log(`\nReferences on the same database:`);
  console.log(
    `  sessions list (querySessions)          ${ms(list).padStart(8)}   stats/list = ${
      (all / list).toFixed(2)
    }x`,
  );
  console.log(
    `  every session's events (queryEvents)   ${ms(readAll).padStart(8)}   stats is ${
      (readAll / all).toFixed(1)
    }x faster`,
  );
  console.log(
    `\nTarget: under 1,000 ms for ${SESSIONS} sessions: ${all < 1000 ? "met" : "MISSED"}`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
