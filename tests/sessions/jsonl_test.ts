import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { importJsonl } from "../../src/sessions/jsonl.ts";
import { formatAgentError } from "../../src/errors.ts";
import { payloadProblem } from "../../src/sessions/event_shapes.ts";
import {
  openTestStore,
  scriptedConversation,
  START_INFO,
  tempDir,
  unwrap,
} from "../helpers/session_store.ts";

Deno.test("exportSession() writes one event a line and importJsonl() gives back the messages", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const writer = unwrap(store.startSession(START_INFO));
  const { events, messages } = scriptedConversation();
  for (const event of events) writer.record(event);
  writer.end();

  const lines: string[] = [];
  const count = unwrap(store.exportSession(writer.id!.slice(0, 8), (line) => lines.push(line)));
  assertEquals(count, lines.length);
  const parsed = lines.map((line) => JSON.parse(line));
  for (const line of parsed) {
    assertEquals(typeof line.type, "string");
    assert(!Number.isNaN(Date.parse(line.at)), line.at);
    assertEquals(typeof line.payload, "object");
    assertEquals(line.session_id, writer.id);
  }
  assertEquals(parsed[0].type, "session_started");
  assertEquals(parsed[0].payload, START_INFO);
  assertEquals(parsed.at(-1).type, "session_ended");
  assert(parsed.some((line) => line.type === "permission_decided" && line.payload.rule));

  const imported = unwrap(store.importJsonl(`${lines.join("\n")}\n`));
  assertEquals(imported, messages);
  assertEquals(imported, unwrap(store.loadSession(writer.id!)).messages);
});

Deno.test("importJsonl() names the line that is not an event", () => {
  const good = '{"type":"user_message","at":"t","payload":{"content":"hi"}}';
  const broken = importJsonl(`${good}\n\n{"type":"nope","payload":{}}\n`);
  assert(!broken.ok);
  assertEquals(
    formatAgentError(broken.error),
    'Cannot import session line 3: unknown event type "nope": give a file made by ' +
      '"harness sessions export"',
  );
  const notJson = importJsonl("{oops");
  assert(!notJson.ok && formatAgentError(notJson.error).includes("line 1: not JSON"));
});

Deno.test("payloadProblem() takes the checkpoint and restore records harness logs today", () => {
  const state = { kind: "file", blob: "b", mode: 0o644 };
  assertEquals(
    payloadProblem("checkpoint_recorded", {
      turn: "t1",
      messageCount: 2,
      prompt: "p",
      started: 1,
      files: ["a.txt"],
      states: { "a.txt": [state, state] },
      commands: ["run_command: make"],
      open: true,
    }),
    undefined,
  );
  assertEquals(
    payloadProblem("files_restored", {
      turns: ["t1"],
      saved: "abc",
      restored: ["a.txt"],
      kept: [],
      left: [{ path: "b", why: "changed" }],
    }),
    undefined,
  );
  assertEquals(
    payloadProblem("checkpoint_recorded", { messageCount: 1, prompt: "p", files: [], open: 1 }),
    '"open" is not true or false',
  );
});
