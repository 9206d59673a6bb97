// Session log benchmark: events written per second through SessionLogWriter.record()
// (one durable INSERT per event) with WAL + synchronous=FULL, and with synchronous=NORMAL
// for reference; then loadSession() time for a session of 1,000 events.
// Run: deno run -A bench/session_bench.ts [events]   (default 2000)

import { join } from "node:path";
import { makeToolResult, toolCallMessage, toolResultMessage } from "../src/messages.ts";
import type { LoopEvent } from "../src/agent/loop_events.ts";
import { openSessionStore } from "../src/sessions/open_session_store.ts";
import type { SessionStore } from "../src/sessions/session_store_types.ts";

const START = {
  model: "m",
  baseUrl: "http://127.0.0.1:11434/v1",
  cwd: "/bench",
  grants: "",
  provider: "openai",
};

/** A realistic mix: user, assistant, a call with its permission, start, state and result. */
function eventAt(i: number): LoopEvent {
  const id = `call_${Math.floor(i / 6)}`;
  switch (i % 6) {
    case 0:
      return { type: "message", message: { kind: "user", content: `Request ${i}: fix the tests` } };
    case 1:
      return {
        type: "message",
        message: {
          kind: "assistant",
          content: "Reading the file.",
          data: { reasoning: "Look first." },
        },
      };
    case 2:
      return {
        type: "message",
        message: toolCallMessage({ id, name: "read_file", arguments: '{"path":"src/a.ts"}' }),
      };
    case 3:
      return {
        type: "permission_decided",
        callId: id,
        name: "read_file",
        decision: { decision: "allow", by: "mode" },
      };
    case 4:
      return {
        type: "state_changed",
        state: { tasks: [{ id: "task_1", content: "x", status: "pending" }], nextTaskId: 2 },
      };
    default:
      return {
        type: "message",
        message: toolResultMessage(id, "read_file", makeToolResult({ data: "x".repeat(2000) })),
      };
  }
}

function open(path: string, synchronous: "FULL" | "NORMAL"): SessionStore {
  const store = openSessionStore({ path, synchronous });
  if (!store.ok) throw new Error(JSON.stringify(store.error));
  return store.value;
}

function writeRate(dir: string, synchronous: "FULL" | "NORMAL", count: number): number {
  const store = open(join(dir, `write_${synchronous}.db`), synchronous);
  const writer = store.startSession(START);
  if (!writer.ok) throw new Error(JSON.stringify(writer.error));
  const started = performance.now();
  for (let i = 0; i < count; i++) writer.value.record(eventAt(i));
  const seconds = (performance.now() - started) / 1000;
  store.close();
  return count / seconds;
}

function loadTime(dir: string, events: number, runs: number): { median: number; min: number } {
  const store = open(join(dir, "load.db"), "FULL");
  const writer = store.startSession(START);
  if (!writer.ok) throw new Error(JSON.stringify(writer.error));
  for (let i = 0; i < events - 1; i++) writer.value.record(eventAt(i)); // + session_started
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const loaded = store.loadSession(writer.value.id ?? "");
    times.push(performance.now() - started);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  }
  store.close();
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)] ?? 0, min: times[0] ?? 0 };
}

if (import.meta.main) {
  const count = Number(Deno.args[0] ?? 2000);
  const dir = await Deno.makeTempDir({ prefix: "harness_session_bench_" });
  try {
    const full = writeRate(dir, "FULL", count);
    const normal = writeRate(dir, "NORMAL", count);
    const load = loadTime(dir, 1000, 20);
    console.log(`session log, ${count} events each (temp dir ${dir}):`);
    console.log(
      `  write, WAL + synchronous=FULL:   ${full.toFixed(0)} events/s (${
        (1000 / full).toFixed(3)
      } ms/event)`,
    );
    console.log(
      `  write, WAL + synchronous=NORMAL: ${normal.toFixed(0)} events/s (${
        (1000 / normal).toFixed(3)
      } ms/event)`,
    );
    console.log(
      `  loadSession(), 1,000 events:      median ${load.median.toFixed(2)} ms, min ${
        load.min.toFixed(2)
      } ms (20 runs)`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
