// The transcript corpus (tests/fixtures/transcripts/, provenance in its SOURCES): every
// real-shaped transcript of each agent and every public one is read, at least 95% import per
// agent with no tool call left without a result, each imported session replays into a
// conversation a provider can send, and each broken file is refused with a line number.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { readTranscript } from "../../src/sessions/transcripts/read_transcript.ts";
import type { ImportedSession } from "../../src/sessions/transcripts/imported_session.ts";
import { replayEvents } from "../../src/sessions/replay.ts";
import { toWireMessages } from "../../src/providers/openai_compat/wire_messages.ts";
import type { SessionEvent } from "../../src/sessions/session_events.ts";

const CORPUS = join(dirname(fileURLToPath(import.meta.url)), "../fixtures/transcripts");

async function filesUnder(folder: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) found.push(...await filesUnder(path));
    else if (/\.jsonl?$/.test(entry.name)) found.push(path);
  }
  return found.sort();
}

/** Calls without exactly one result. */
function orphans(session: ImportedSession): string[] {
  const results = new Map<string, number>();
  const calls: string[] = [];
  for (const event of session.events) {
    if (event.type === "tool_call_requested") calls.push(event.payload.callId);
    if (event.type === "tool_call_finished") {
      results.set(event.payload.callId, (results.get(event.payload.callId) ?? 0) + 1);
    }
  }
  return calls.filter((id) => results.get(id) !== 1);
}

/** Reads every file of a folder; returns the sessions and the failures. */
async function readAll(folder: string) {
  const sessions: { file: string; session: ImportedSession }[] = [];
  const failures: string[] = [];
  for (const file of await filesUnder(folder)) {
    const read = readTranscript(await Deno.readTextFile(file), file);
    if (read.ok) sessions.push({ file, session: read.value });
    else failures.push(`${relative(CORPUS, file)}: ${read.error}`);
  }
  return { sessions, failures };
}

/** The session's conversation, as a resume gives it to a provider. */
function assertSendable(file: string, session: ImportedSession): void {
  const replayed = replayEvents(session.events as SessionEvent[]);
  assertEquals(replayed.unanswered, [], file);
  const wire = toWireMessages(
    [{ kind: "system", content: "sys" }, ...replayed.messages],
    (id) => id,
  );
  assert(wire.ok, `${file}: ${JSON.stringify(!wire.ok && wire.error)}`);
}

for (const agent of ["claude-code", "codex", "gemini-cli", "opencode"] as const) {
  Deno.test(`readTranscript() imports the ${agent} corpus whole, every call answered`, async () => {
    const { sessions, failures } = await readAll(join(CORPUS, agent));
    const total = sessions.length + failures.length;
    assert(total >= 10, `only ${total} ${agent} transcripts`);
    assert(sessions.length / total >= 0.95, failures.join("\n"));
    for (const { file, session } of sessions) {
      assertEquals(session.source.agent, agent, file);
      assertEquals(orphans(session), [], file);
      assert(session.messages > 0, file);
      // Recorded where the transcript says; Gemini CLI and the older Codex layouts do not say.
      assert(session.cwd === undefined || session.cwd === "/home/dev/projects/webapp", file);
      assertSendable(file, session);
    }
  });
}

Deno.test("readTranscript() imports the public Claude Code and Codex transcripts in SOURCES", async () => {
  const listed = (await Deno.readTextFile(join(CORPUS, "SOURCES"))).split("\n")
    .filter((line) => line !== "" && !line.startsWith("#")).map((line) => line.split("\t")[0]!);
  const { sessions, failures } = await readAll(join(CORPUS, "real"));
  assertEquals(failures, []);
  assertEquals(sessions.map(({ file }) => relative(CORPUS, file)).sort(), listed.sort());
  const byAgent = Map.groupBy(sessions, ({ session }) => session.source.agent);
  assert((byAgent.get("claude-code")?.length ?? 0) >= 5);
  assert((byAgent.get("codex")?.length ?? 0) >= 5);
  for (const { file, session } of sessions) {
    assertEquals(orphans(session), [], file);
    assertSendable(file, session);
  }
});

Deno.test("readTranscript() refuses each broken transcript with the line at fault", async () => {
  const { sessions, failures } = await readAll(join(CORPUS, "broken"));
  assertEquals(sessions.map(({ file }) => file), []);
  assertEquals(failures.length, 7);
  for (const failure of failures) match(failure, /lines? \d+/);
  const byFile = new Map(failures.map((line) => [line.split(":")[0]!, line]));
  match(byFile.get("broken/gemini_truncated.json")!, /not JSON at line 21, column 91/);
  match(byFile.get("broken/opencode_truncated.json")!, /not JSON at line 36, column 16/);
  match(
    byFile.get("broken/harness_unknown_event.jsonl")!,
    /line 3: unknown event type "assistant_said"/,
  );
  match(byFile.get("broken/not_a_transcript.jsonl")!, /line 1 is not JSON: the file is not one of/);
  match(
    byFile.get("broken/claude_only_summaries.jsonl")!,
    /no user or assistant message \(summary lines without uuid: 2 \(lines 1, 2\), not objects: 1 \(line 3\)\)/,
  );
});
