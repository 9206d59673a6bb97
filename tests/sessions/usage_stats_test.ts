// Tests of the usage statistics (src/sessions/usage_stats.ts) over a real session database
// written by the real log writer: per tool and per model, errors by type, run-time
// percentiles, approvals and their wait, tokens reused and processed (unknown for turns that
// did not say), loop-guard and limit stops, the --since window and one session's numbers.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { Conversation } from "../../src/agent/conversation.ts";
import type { LoopEvent } from "../../src/agent/loop_events.ts";
import {
  makeToolResult,
  toolCallMessage,
  type ToolErrorType,
  toolResultMessage,
  type Usage,
} from "../../src/messages.ts";
import { callTools, ScriptedProvider } from "../../src/providers/scripted.ts";
import { appendEvent } from "../../src/sessions/log_writer.ts";
import { openSessionStore } from "../../src/sessions/open_session_store.ts";
import { openDatabase } from "../../src/sessions/schema.ts";
import type { SessionLogWriter } from "../../src/sessions/log_writer.ts";
import type { SessionStore } from "../../src/sessions/session_store_types.ts";
import type { UsageStats } from "../../src/sessions/usage_stats_types.ts";
import { usageStatsQueries } from "../../src/sessions/usage_stats.ts";
import { openLoopHost, RecordingApprover, toolScope } from "../helpers/loop_host.ts";
import { makeV1Database } from "../fixtures/sessions/make_v1_database.ts";

/** A clock the test moves by hand. */
class TestClock {
  now = Date.parse("2026-03-01T10:00:00.000Z");
  read = () => new Date(this.now);
  advance(ms: number) {
    this.now += ms;
  }
}

interface Db extends AsyncDisposable {
  path: string;
  store: SessionStore;
  clock: TestClock;
  start(model: string): SessionLogWriter;
  stats(options?: Parameters<SessionStore["usageStats"]>[0]): UsageStats;
}

async function openDb(): Promise<Db> {
  const dir = await Deno.makeTempDir({ prefix: "harness_stats_" });
  const path = join(dir, "harness.db");
  const clock = new TestClock();
  let n = 0;
  const opened = openSessionStore({ path, clock: clock.read, newId: () => `s${++n}` });
  if (!opened.ok) throw new Error(JSON.stringify(opened.error));
  const store = opened.value;
  return {
    path,
    store,
    clock,
    start(model) {
      const writer = store.startSession({
        model,
        baseUrl: "http://x",
        cwd: "/w",
        grants: "",
        provider: "openai",
      });
      if (!writer.ok) throw new Error(JSON.stringify(writer.error));
      return writer.value;
    },
    stats(options) {
      const stats = store.usageStats(options);
      if (!stats.ok) throw new Error(JSON.stringify(stats.error));
      return stats.value;
    },
    async [Symbol.asyncDispose]() {
      store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Usage as the servers' cache counters are recorded (`reusedTokens`, when the server says). */
type LoggedUsage = Usage & { reusedTokens?: number };

const assistant = (usage?: LoggedUsage): LoopEvent => ({
  type: "message",
  message: { kind: "assistant", content: "ok", data: usage ? { usage } : {} },
});

/** One call as the loop records it: request, decision, (start), result. */
function call(
  db: Db,
  writer: SessionLogWriter,
  options: {
    id: string;
    name: string;
    errorType?: ToolErrorType;
    ms?: number;
    by?: "user" | "policy" | "mode";
    allow?: boolean;
    /** How long the user took to answer. */
    waitMs?: number;
  },
) {
  const { id, name } = options;
  writer.record({ type: "message", message: toolCallMessage({ id, name, arguments: "{}" }) });
  db.clock.advance(options.waitMs ?? 0);
  const allow = options.allow ?? true;
  writer.record({
    type: "permission_decided",
    callId: id,
    name,
    decision: { decision: allow ? "allow" : "deny", by: options.by ?? "mode" },
  });
  if (allow) writer.record({ type: "tool_started", callId: id, name, args: {} });
  const result = makeToolResult({
    data: "x",
    errorType: allow ? options.errorType ?? "none" : "permission_denied",
    executionTimeMs: allow ? options.ms ?? 1 : 0,
  });
  writer.record({ type: "message", message: toolResultMessage(id, name, result) });
}

Deno.test("queryUsageStats() counts each tool's calls, successes, errors by type and run time", async () => {
  await using db = await openDb();
  const w = db.start("qwen3");
  w.record({ type: "message", message: { kind: "user", content: "go" } });
  w.record(assistant());
  for (const [i, ms] of [10, 20, 30, 40, 50, 60, 70, 80, 90, 1000].entries()) {
    call(db, w, { id: `r${i}`, name: "read_file", ms, errorType: i === 3 ? "not_found" : "none" });
  }
  call(db, w, { id: "c1", name: "run_command", ms: 5, errorType: "timeout" });
  call(db, w, { id: "c2", name: "run_command", ms: 7, errorType: "timeout" });
  call(db, w, { id: "c3", name: "run_command", by: "policy", allow: false });

  const stats = db.stats();
  assertEquals(stats.sessions, 1);
  const [read, run] = stats.tools;
  assertEquals(
    { tool: read?.tool, calls: read?.calls, ok: read?.successes, errors: read?.errors },
    { tool: "read_file", calls: 10, ok: 9, errors: { not_found: 1 } },
  );
  assertEquals([read?.medianMs, read?.p95Ms, read?.successRate], [50, 1000, 0.9]);
  assertEquals(
    { calls: run?.calls, ok: run?.successes, errors: run?.errors },
    { calls: 3, ok: 0, errors: { timeout: 2, permission_denied: 1 } },
  );
  // The denied call never ran: its 0 ms does not pull the median down.
  assertEquals([run?.medianMs, run?.p95Ms], [5, 7]);
  assertEquals([run?.approvals.ruleDenied, run?.approvals.ruleAllowed], [1, 2]);
});

Deno.test("queryUsageStats() counts the user's approvals, denials and changes and how long each took", async () => {
  await using db = await openDb();
  const w = db.start("qwen3");
  call(db, w, { id: "a", name: "write_file", by: "user", waitMs: 2_000 });
  call(db, w, { id: "b", name: "write_file", by: "user", waitMs: 4_000 });
  call(db, w, { id: "c", name: "write_file", by: "user", waitMs: 9_000, allow: false });
  call(db, w, { id: "d", name: "read_file", by: "mode", waitMs: 50_000 });
  // A changed call, as an edit before approving writes it.
  const raw = openDatabase(db.path);
  if (!raw.ok) throw new Error();
  const log = { path: db.path, db: raw.value, clock: db.clock.read, onWriteError() {} };
  appendEvent(log, "s1", {
    type: "tool_call_requested",
    payload: { callId: "e", name: "write_file", arguments: '{"path":"a"}' },
  });
  db.clock.advance(6_000);
  appendEvent(log, "s1", {
    type: "permission_decided",
    payload: {
      callId: "e",
      name: "write_file",
      decision: "allow",
      by: "user",
      changedArguments: '{"path":"b"}',
    },
  });
  raw.value.close();

  const stats = db.stats();
  const write = stats.tools.find((t) => t.tool === "write_file")!;
  assertEquals(write.approvals, {
    approved: 2,
    denied: 1,
    changed: 1,
    medianWaitMs: 4_000,
    p95WaitMs: 9_000,
    ruleAllowed: 0,
    ruleDenied: 0,
  });
  // The mode's decision is not a wait for the user, however long the log paused before it.
  assertEquals(stats.approvals.medianWaitMs, 4_000);
  assertEquals([stats.approvals.ruleAllowed, stats.approvals.approved], [1, 2]);
});

Deno.test("queryUsageStats() keeps prompt tokens of turns that did not report reuse as unknown, not zero", async () => {
  await using db = await openDb();
  const old = db.start("llama");
  old.record(assistant({ promptTokens: 1000, completionTokens: 50 }));
  old.record(assistant());
  const now = db.start("llama");
  now.record(assistant({ promptTokens: 1200, completionTokens: 40, reusedTokens: 1000 }));
  now.record(assistant({ promptTokens: 1500, completionTokens: 60, reusedTokens: 1200 }));
  const other = db.start("qwen3");
  other.record(assistant({ promptTokens: 10, completionTokens: 1, reusedTokens: 0 }));

  const stats = db.stats();
  assertEquals(stats.models.map((m) => m.model), ["llama", "qwen3"]);
  const { model: _, ...llama } = stats.models[0]!;
  assertEquals(llama, {
    sessions: 2,
    toolCalls: 0,
    turns: 4,
    turnsWithoutUsage: 1,
    promptTokens: 3700,
    reusedTokens: 2200,
    processedTokens: 500,
    unknownReuseTokens: 1000,
    generatedTokens: 150,
  });
  assertEquals(
    stats.trends.tokensPerSession.map((s) => [s.sessionId, s.promptTokens, s.generatedTokens]),
    [["s1", 1000, 50], ["s2", 2700, 100], ["s3", 10, 1]],
  );
});

Deno.test("queryUsageStats() counts side requests (a tool's, the /compact summary) apart from turns", async () => {
  await using db = await openDb();
  const w = db.start("llama");
  w.record(assistant({ promptTokens: 1000, completionTokens: 50 }));
  // The loop's usage events: a turn's own is on its assistant message and is not logged twice.
  w.record({ type: "usage", usage: { promptTokens: 1000, completionTokens: 50 } });
  w.record({
    type: "usage",
    usage: { promptTokens: 300, completionTokens: 20 },
    side: "read_file",
  });
  w.record({
    type: "usage",
    usage: { promptTokens: 200, completionTokens: 10 },
    side: "read_file",
  });
  w.record({ type: "usage", usage: { promptTokens: 900, completionTokens: 80 }, side: "summary" });
  const stats = db.stats();
  assertEquals(stats.models[0]?.promptTokens, 1000);
  assertEquals(stats.sideRequests, [
    { side: "read_file", requests: 2, promptTokens: 500, generatedTokens: 30 },
    { side: "summary", requests: 1, promptTokens: 900, generatedTokens: 80 },
  ]);
  // A resumed session does not replay them as messages.
  const events = db.store.loadSession("s1");
  assert(events.ok);
  assertEquals(events.value.messages.map((m) => m.kind), ["assistant"]);
});

Deno.test("queryUsageStats() reads --since and one session, and counts calls per day", async () => {
  await using db = await openDb();
  const first = db.start("m");
  first.record(assistant());
  call(db, first, { id: "a", name: "ls" });
  db.clock.advance(86_400_000);
  const cut = db.clock.read().toISOString();
  first.record(assistant());
  call(db, first, { id: "b", name: "ls" });
  const second = db.start("m");
  second.record(assistant());
  call(db, second, { id: "c", name: "glob" });
  call(db, second, { id: "d", name: "glob" });

  const all = db.stats({ days: "utc" });
  assertEquals(all.trends.callsPerDay, [
    { day: "2026-03-01", calls: 1 },
    { day: "2026-03-02", calls: 3 },
  ]);
  const since = db.stats({ since: cut, days: "utc" });
  assertEquals([since.sessions, since.tools.map((t) => [t.tool, t.calls])], [2, [["glob", 2], [
    "ls",
    1,
  ]]]);
  const one = db.stats({ sessionId: "s2" });
  assertEquals([one.sessions, one.sessionId, one.tools.map((t) => t.tool)], [1, "s2", ["glob"]]);
  const none = db.stats({ since: "2030-01-01T00:00:00.000Z" });
  assertEquals([none.sessions, none.tools], [0, []]);
});

Deno.test("queryUsageStats() counts a real repeated-failure stop and the limits", async () => {
  await using db = await openDb();
  await using h = await openLoopHost();
  const fail = () => callTools([{ name: "fail", args: { how: "error" } }]);
  const recorder = db.start("scripted");
  const conversation = Conversation.start({
    provider: new ScriptedProvider([fail(), fail(), fail()]),
    tools: toolScope(h.host),
    approver: new RecordingApprover(),
    recorder,
    limits: { maxIterations: 10, maxToolCalls: 15 },
    window: {},
    stages: { call: [], turn: [] },
  }, "sys");
  const outcome = await conversation.send("go", () => {}, new AbortController().signal);
  assertEquals(outcome.stopReason, "error");
  recorder.record({ type: "limit_reached", limit: "iterations", max: 10 });
  recorder.record({ type: "done", stopReason: "iteration_limit", text: "" });
  recorder.record({ type: "limit_reached", limit: "tool_calls", max: 15 });

  const stats = db.stats();
  assertEquals(stats.stops, {
    loopGuard: 0,
    repeatedFailures: 1,
    iterationLimit: 1,
    toolCallLimit: 1,
    byReason: { error: 1, iteration_limit: 1 },
  });
  const failTool = stats.tools.find((t) => t.tool === "fail");
  assertEquals([failTool?.calls, failTool?.errors], [3, { internal_error: 3 }]);
});

Deno.test("SessionStore.usageStats() is an error with --no-session, and reads an empty log", async () => {
  const { createNullSessionStore } = await import("../../src/sessions/null_session_store.ts");
  const off = createNullSessionStore().usageStats();
  assert(!off.ok && off.error.kind === "usage");
  await using db = await openDb();
  const stats = db.stats();
  assertEquals([stats.sessions, stats.tools, stats.models, stats.trends.callsPerDay], [
    0,
    [],
    [],
    [],
  ]);
});

Deno.test("queryUsageStats() reads the stats indexes of migration 4, never every event", async () => {
  await using db = await openDb();
  const w = db.start("m");
  w.record(assistant({ promptTokens: 1, completionTokens: 1 }));
  call(db, w, { id: "a", name: "ls", by: "user" });
  const raw = openDatabase(db.path);
  if (!raw.ok) throw new Error();
  try {
    for (const options of [{}, { since: "2026-01-01T00:00:00.000Z" }]) {
      for (const [sql, params] of usageStatsQueries(options)) {
        const plan = raw.value.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params)
          .map((row) => String(row.detail));
        const reads = plan.filter((line) => /^(SCAN|SEARCH) (events|p)\b/.test(line));
        assert(reads.length > 0, `no read of events in ${sql}`);
        for (const line of reads) {
          assert(
            /USING (COVERING )?INDEX (events_tool_results|events_decisions|events_turns|events_stops|events_side_requests)\b/
              .test(line) || /^SEARCH p USING INDEX events_by_session/.test(line),
            `${line}\nin: ${sql}`,
          );
        }
      }
    }
  } finally {
    raw.value.close();
  }
});

Deno.test("queryUsageStats() counts the rows of a schema-1 database after its migrations", async () => {
  const dir = await Deno.makeTempDir({ prefix: "harness_stats_v1_" });
  try {
    const path = join(dir, "harness.db");
    makeV1Database(path);
    const opened = openSessionStore({ path });
    if (!opened.ok) throw new Error(JSON.stringify(opened.error));
    const stats = opened.value.usageStats();
    opened.value.close();
    if (!stats.ok) throw new Error(JSON.stringify(stats.error));
    const { sessions, tools, models, stops } = stats.value;
    assertEquals(sessions, 1);
    assertEquals(tools.map((t) => [t.tool, t.calls, t.successes, t.medianMs]), [["ls", 1, 1, 3]]);
    assertEquals(
      models.map((
        m,
      ) => [m.model, m.turns, m.turnsWithoutUsage, m.promptTokens, m.unknownReuseTokens]),
      [["llama3.1", 2, 1, 50, 50]],
    );
    assertEquals(stops.byReason, { answered: 1 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
