// One damaged row (a payload that is not JSON: a disk fault, an edit by hand) spoils only its
// own session: the list, the latest session and search still read every other one, and the
// damaged session is named as such.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../../src/sessions/schema.ts";
import { querySearch, querySessions } from "../../src/sessions/query_sessions.ts";
import { tempDir } from "../helpers/session_store.ts";
import { cliSandbox } from "../helpers/run_cli.ts";

function session(db: import("node:sqlite").DatabaseSync, id: string, text: string): void {
  db.prepare("INSERT INTO sessions VALUES (?, '2025-01-01T00:00:00Z', '/p', 'm', 'u', '', '')")
    .run(id);
  db.prepare("INSERT INTO events (session_id, type, at, payload) VALUES (?, ?, ?, ?)")
    .run(id, "user_message", "2025-01-01T00:00:01Z", JSON.stringify({ content: text }));
}

Deno.test("querySessions() lists the other sessions and names the one with a damaged row", async () => {
  await using dir = await tempDir();
  const opened = openDatabase(`${dir.path}/h.db`);
  if (!opened.ok) throw new Error(JSON.stringify(opened.error));
  const db = opened.value;
  try {
    session(db, "good-1", "refactor the parser");
    session(db, "bad", "fix the tests");
    session(db, "good-2", "refactor the lexer");
    // Damaged after it was written: the search index keeps its earlier text.
    db.prepare("UPDATE events SET payload = '{\"content\": \"fix' WHERE session_id = 'bad'").run();
    const listed = querySessions(db, { withUserMessage: true });
    assertEquals(listed.map((s) => [s.id, s.damaged]), [
      ["good-2", undefined],
      ["bad", 1],
      ["good-1", undefined],
    ]);
    assertEquals(listed.find((s) => s.id === "bad")?.firstUserMessage, null);
    assertEquals(
      querySessions(db, { cwd: "/p", withUserMessage: true, limit: 1 })[0]?.id,
      "good-2",
    );
    assert(querySearch(db, "refactor", 10).length === 2);
  } finally {
    db.close();
  }
});

Deno.test("harness sessions lists every session and names the damaged one", async () => {
  await using sandbox = await cliSandbox();
  const data = join(sandbox.home, ".local", "share", "harness");
  await Deno.mkdir(data, { recursive: true });
  const opened = openDatabase(join(data, "harness.db"));
  if (!opened.ok) throw new Error(JSON.stringify(opened.error));
  session(opened.value, "good-1", "refactor the parser");
  session(opened.value, "bad", "fix the tests");
  opened.value.prepare("UPDATE events SET payload = 'not json' WHERE session_id = 'bad'").run();
  opened.value.close();
  const out = await sandbox.run(["sessions"]);
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /good-1 .*refactor the parser/);
  match(out.stdout, /bad .*\[damaged: 1 unreadable event\]/);
});
