// One damaged row (a payload that is no longer JSON: a disk fault, an edit of the file) spoils
// only its own session in the usage statistics too: `harness stats` and `/stats` count every
// other session, leave the unreadable rows out and name the session they belong to. The rows
// are damaged in the file itself, as a fault would: SQLite refuses to write invalid JSON where
// an index reads it, so an UPDATE cannot make them.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { openDatabase } from "../../src/sessions/schema.ts";
import { queryUsageStats } from "../../src/sessions/usage_stats.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { tempDir } from "../helpers/session_store.ts";

const MARK = "DAMAGE-ME";

function open(path: string): DatabaseSync {
  const opened = openDatabase(path);
  if (!opened.ok) throw new Error(JSON.stringify(opened.error));
  return opened.value;
}

/** A session with one model turn, one approval and one tool call; `damaged` types are marked. */
function session(db: DatabaseSync, id: string, damaged: readonly string[] = []): void {
  db.prepare("INSERT INTO sessions VALUES (?, '2026-01-01T00:00:00Z', '/p', 'm', 'u', '', '')")
    .run(id);
  const add = db.prepare("INSERT INTO events (session_id, type, at, payload) VALUES (?, ?, ?, ?)");
  const event = (type: string, payload: Record<string, unknown>) =>
    add.run(
      id,
      type,
      "2026-01-01T00:00:01Z",
      JSON.stringify({ ...payload, mark: damaged.includes(type) ? MARK : "ok" }),
    );
  event("user_message", { content: "hi" });
  event("assistant_message", { content: "x", usage: { promptTokens: 100, completionTokens: 10 } });
  event("permission_decided", { name: "read_file", by: "user", decision: "allow" });
  event("tool_call_finished", {
    name: "read_file",
    status: "succeeded",
    result: { metadata: { execution_time_ms: 5 } },
  });
}

/** Makes every payload ending in `"mark":"DAMAGE-ME"}` invalid JSON in the file itself. */
async function damageOnDisk(path: string): Promise<void> {
  const bytes = await Deno.readFile(path);
  const text = new TextDecoder("latin1").decode(bytes);
  const tail = `"${MARK}"}`;
  let found = 0;
  for (let i = text.indexOf(tail); i !== -1; i = text.indexOf(tail, i + 1)) {
    bytes[i + tail.length - 1] = "x".charCodeAt(0);
    found++;
  }
  assert(found > 0, "the marked payloads are in the file");
  await Deno.writeFile(path, bytes);
}

/**
 * A database of `good` sessions and one, "bad", whose rows of `types` are then damaged. With
 * `recovered`, the stats indexes are gone, as after `sqlite3 .recover` (an index over a
 * damaged row cannot be built again): every count then reads the payloads.
 */
async function damagedDatabase(
  path: string,
  good: number,
  types: readonly string[],
  options: { recovered?: boolean } = {},
): Promise<void> {
  const db = open(path);
  session(db, "bad", types);
  for (let n = 1; n <= good; n++) session(db, `good-${n}`);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  await damageOnDisk(path);
  if (!options.recovered) return;
  const recovered = open(path);
  const indexes = recovered.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%json_extract%'",
  ).all().map((row) => String(row.name));
  for (const name of indexes) recovered.exec(`DROP INDEX ${name}`);
  recovered.close();
}

const COUNTED = ["assistant_message", "permission_decided", "tool_call_finished"];

Deno.test("queryUsageStats() leaves a damaged row out, counts the other sessions and names it", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "harness.db");
  await damagedDatabase(path, 3, ["permission_decided"], { recovered: true });
  const db = open(path);
  try {
    const all = queryUsageStats(db);
    assertEquals(all.damaged, [{ sessionId: "bad", events: 1 }]);
    // The other rows of that session still count.
    assertEquals(all.tools.map((t) => [t.tool, t.calls, t.approvals.approved]), [
      ["read_file", 4, 3],
    ]);
    assertEquals(all.sessions, 4);
  } finally {
    db.close();
  }
});

Deno.test("queryUsageStats() of the damaged session (/stats) names it instead of failing", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "harness.db");
  // The indexes are there: this session's numbers are read from its rows.
  await damagedDatabase(path, 2, COUNTED);
  const db = open(path);
  try {
    const invalid = db.prepare("SELECT count(*) AS n FROM events WHERE NOT json_valid(payload)");
    assertEquals(invalid.get()?.n, 3);
    const own = queryUsageStats(db, { sessionId: "bad" });
    assertEquals(own.damaged, [{ sessionId: "bad", events: 3 }]);
    assertEquals([own.tools, own.models], [[], []]);
    const other = queryUsageStats(db, { sessionId: "good-1" });
    assertEquals(other.damaged, undefined);
    assertEquals(other.tools.map((t) => t.calls), [1]);
  } finally {
    db.close();
  }
});

Deno.test("harness stats counts the other sessions and names the damaged one", async () => {
  await using sandbox = await cliSandbox();
  const data = join(sandbox.home, ".local", "share", "harness");
  await Deno.mkdir(data, { recursive: true });
  await damagedDatabase(join(data, "harness.db"), 2, COUNTED, { recovered: true });
  const text = await sandbox.run(["stats"]);
  assertEquals(text.code, 0, text.stderr);
  match(text.stdout, /read_file\s+2\s+100%/);
  match(text.stdout, /3 unreadable events of session bad/);
  const json = await sandbox.run(["stats", "--json"]);
  assertEquals(json.code, 0, json.stderr);
  assertEquals(lastJsonLine(json.stdout).damaged, [{ sessionId: "bad", events: 3 }]);
});
