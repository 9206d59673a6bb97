import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { formatAgentError } from "../../src/errors.ts";
import {
  defaultSessionDatabasePath,
  openSessionStore,
} from "../../src/sessions/open_session_store.ts";
import { SCHEMA_VERSION } from "../../src/sessions/schema.ts";
import { makeV1Database, V1_SESSION_ID } from "../fixtures/sessions/make_v1_database.ts";
import { assertEveryCallAnswered, START_INFO, tempDir, unwrap } from "../helpers/session_store.ts";

function openError(path: string): string {
  const opened = openSessionStore({ path });
  assert(!opened.ok, "expected the store not to open");
  assertEquals(opened.error.kind, "session_store");
  return formatAgentError(opened.error);
}

Deno.test("openSessionStore() names the file and the fix for a file that is not a database", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "harness.db");
  await Deno.writeTextFile(path, "this is not sqlite ".repeat(100));
  assertEquals(
    openError(path),
    `Cannot open session database "${path}": file is not a database: ` +
      `move it aside or run with --no-session`,
  );
});

Deno.test("SessionStore reads of a database with corrupt pages return a session_store error", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "harness.db");
  const opened = openSessionStore({ path });
  assert(opened.ok);
  // The schema's pages come first (written by the migrations of the empty file): kept intact.
  const schemaPages = pageCount(path);
  for (let i = 0; i < 100; i++) {
    const writer = opened.value.startSession(START_INFO);
    assert(writer.ok);
    writer.value.record({ type: "message", message: { kind: "user", content: "x".repeat(500) } });
  }
  opened.value.close();
  const bytes = await Deno.readFile(path);
  for (let i = 4096 * schemaPages; i < bytes.length; i += 7) bytes[i] = 0x55;
  await Deno.writeFile(path, bytes);
  const reopened = openSessionStore({ path });
  assert(reopened.ok, "the schema's pages are intact, so the file opens");
  try {
    const listed = reopened.value.listSessions();
    assert(!listed.ok);
    assertEquals(
      formatAgentError(listed.error),
      `Cannot read session database "${path}": database disk image is malformed: ` +
        `move it aside (sqlite3's .recover may save its sessions) or run with --no-session`,
    );
  } finally {
    reopened.value.close();
  }
});

Deno.test("openSessionStore() refuses a database from a newer schema version", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "harness.db");
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  const message = openError(path);
  assert(message.startsWith(`Cannot open session database "${path}": it has schema version`));
  assert(message.endsWith("upgrade harness, or run with --no-session"), message);
});

Deno.test({
  name: "openSessionStore() explains an unwritable folder",
  ignore: Deno.build.os === "windows" || Deno.uid() === 0, // root ignores file modes
  async fn() {
    await using dir = await tempDir();
    const locked = join(dir.path, "locked");
    await Deno.mkdir(locked, { mode: 0o500 });
    const message = openError(join(locked, "harness.db"));
    assert(message.startsWith(`Cannot open session database "${join(locked, "harness.db")}"`));
    assert(message.includes("--no-session"), message);
  },
});

Deno.test("openSessionStore() explains a data folder that cannot be created", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "plain_file");
  await Deno.writeTextFile(file, "");
  const message = openError(join(file, "harness", "harness.db"));
  assert(message.includes(`cannot create folder "${join(file, "harness")}"`), message);
  assert(message.endsWith("or run with --no-session"), message);
});

Deno.test("openSessionStore() uses WAL and synchronous=FULL", async () => {
  await using dir = await tempDir();
  const opened = openSessionStore({ path: join(dir.path, "h.db") });
  assert(opened.ok);
  opened.value.close();
  const db = new DatabaseSync(join(dir.path, "h.db"));
  assertEquals(db.prepare("PRAGMA journal_mode").get()?.journal_mode, "wal");
  assertEquals(db.prepare("PRAGMA user_version").get()?.user_version, SCHEMA_VERSION);
  db.close();
});

Deno.test("openSessionStore() migrates a schema-v1 database and keeps its sessions readable", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "harness.db");
  makeV1Database(path);
  const opened = openSessionStore({ path });
  assert(opened.ok);
  const store = opened.value;
  try {
    const [session] = unwrap(store.listSessions());
    assertEquals(session?.id, V1_SESSION_ID);
    assertEquals(session?.provider, "");
    assertEquals(session?.firstUserMessage, "What files are in the legacy folder?");
    const loaded = store.loadSession(V1_SESSION_ID.slice(0, 6));
    assert(loaded.ok);
    assertEquals(loaded.value.messages.map((m) => m.kind), [
      "system",
      "user",
      "assistant",
      "tool_call",
      "tool_result",
      "assistant",
    ]);
    assertEveryCallAnswered(loaded.value.messages);
    assertEquals(loaded.value.state, { tasks: [], nextTaskId: 1 });
    // Old rows were indexed for search by the migration; new sessions still work.
    assertEquals(unwrap(store.searchSessions("legacy folder")).hits[0]?.sessionId, V1_SESSION_ID);
    assert(store.startSession(START_INFO).ok);
    assertEquals(unwrap(store.listSessions()).length, 2);
  } finally {
    store.close();
  }
});

Deno.test("defaultSessionDatabasePath() follows XDG_DATA_HOME, else ~/.local/share", () => {
  assertEquals(
    defaultSessionDatabasePath({ HOME: "/home/u" }),
    join("/home/u", ".local", "share", "harness", "harness.db"),
  );
  assertEquals(
    defaultSessionDatabasePath({ HOME: "/home/u", XDG_DATA_HOME: "/x" }),
    join("/x", "harness", "harness.db"),
  );
});

/** The pages a database file holds, read with its own connection. */
function pageCount(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return Number(db.prepare("PRAGMA page_count").get()?.page_count);
  } finally {
    db.close();
  }
}
