// Each tolerance of the transcript readers on its own (issue 46's transcript items): Claude
// Code lines that are not objects and summary lines without a uuid, Gemini CLI's two layouts
// with their patches and rewinds, an opencode export whose first line is not JSON, Codex's
// three layouts; and the builder's pairing rules (interrupted calls, repeated ids, stray results).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { readTranscript } from "../../src/sessions/transcripts/read_transcript.ts";
import type { ImportedSession } from "../../src/sessions/transcripts/imported_session.ts";
import { TranscriptBuilder } from "../../src/sessions/transcripts/transcript_builder.ts";

const lines = (...values: unknown[]) => values.map((v) => JSON.stringify(v)).join("\n") + "\n";

function read(text: string, file = "t.jsonl", folders = {}): ImportedSession {
  const result = readTranscript(text, file, folders);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

/** The conversation as [kind, text] pairs. */
function said(session: ImportedSession): string[] {
  return session.events.flatMap((event) => {
    switch (event.type) {
      case "user_message":
        return [`user: ${event.payload.content}`];
      case "assistant_message":
        return [`assistant: ${event.payload.content}`];
      case "tool_call_requested":
        return [`call ${event.payload.name} ${event.payload.arguments}`];
      case "tool_call_finished":
        return [
          `result ${event.payload.status}: ${
            event.payload.result.data ?? event.payload.result.error_message
          }`,
        ];
      case "conversation_compacted":
        return [`compacted: ${event.payload.summary}`];
      default:
        return [];
    }
  });
}

const cc = (
  uuid: string,
  parentUuid: string | null,
  type: string,
  content: unknown,
  extra = {},
) => ({
  parentUuid,
  isSidechain: false,
  cwd: "/w",
  sessionId: "s-1",
  version: "2.0.14",
  type,
  uuid,
  timestamp: "2025-08-01T10:00:00.000Z",
  message: { role: type, content },
  ...extra,
});

Deno.test("readTranscript() skips and counts Claude Code's non-object lines and summary lines", () => {
  const session = read(
    lines(
      { type: "summary", summary: "Fixing tests", leafUuid: "a1" },
      "a stray string",
      [1, 2],
      cc("u1", null, "user", "hi"),
      cc("x1", "u1", "assistant", [{ type: "text", text: "sidechain" }], { isSidechain: true }),
      cc("a1", "u1", "assistant", [{ type: "thinking", thinking: "hm", signature: "s" }, {
        type: "text",
        text: "hello",
      }]),
    ) + "{truncated",
  );
  assertEquals(said(session), ["user: hi", "assistant: hello"]);
  assertEquals(session.skipped, [
    { line: 1, reason: "summary lines without uuid" },
    { line: 2, reason: "not objects" },
    { line: 3, reason: "not objects" },
    { line: 5, reason: "subagent (sidechain) lines" },
    { line: 7, reason: "not JSON" },
  ]);
  assertEquals(session.cwd, "/w");
  const assistant = session.events.find((event) => event.type === "assistant_message");
  assertEquals(assistant?.type === "assistant_message" && assistant.payload.reasoning, "hm");
});

Deno.test("readTranscript() follows Claude Code's chain past a rewind and through a compaction", () => {
  const session = read(lines(
    cc("u1", null, "user", "start"),
    cc("a1", "u1", "assistant", [{
      type: "tool_use",
      id: "t1",
      name: "Bash",
      input: { command: "ls" },
    }]),
    cc("r1", "a1", "user", [{
      type: "tool_result",
      tool_use_id: "t1",
      content: [{ type: "text", text: "a.txt" }, {
        type: "image",
        source: { media_type: "image/png" },
      }],
    }]),
    cc("dead", "r1", "user", "abandoned attempt"),
    cc("u2", "r1", "user", "second attempt"),
    {
      type: "system",
      subtype: "compact_boundary",
      uuid: "cb",
      parentUuid: null,
      logicalParentUuid: "u2",
      sessionId: "s-1",
    },
    cc("cs", "cb", "user", "Summary: listed files.", { isCompactSummary: true }),
    cc("a2", "cs", "assistant", [{
      type: "tool_use",
      id: "t2",
      name: "Read",
      input: { file_path: "a.txt" },
    }]),
  ));
  assertEquals(said(session), [
    "user: start",
    'call Bash {"command":"ls"}',
    "result succeeded: a.txt\n\n[Image (image/png) not imported]",
    "user: second attempt",
    "compacted: Summary: listed files.",
    'call Read {"file_path":"a.txt"}',
    'result interrupted: Claude Code recorded no result for this call (it was interrupted, or the transcript ends): it may or may not have had effects. Check the current state before calling "Read" again',
  ]);
  assertEquals(session.skipped, [{ line: 4, reason: "lines of an abandoned branch" }]);
  assertEquals([session.keptAsText, session.interrupted], [1, 1]);
});

const GEMINI_HEADER = {
  sessionId: "g-1",
  projectHash: "ab12",
  startTime: "2025-09-01T08:00:00.000Z",
  lastUpdated: "2025-09-01T08:00:00.000Z",
};
const gUser = (id: string, text: string) => ({
  id,
  timestamp: "2025-09-01T08:00:01.000Z",
  type: "user",
  content: [{ text }],
});
const gModel = (id: string, text: string, toolCalls?: unknown[]) => ({
  id,
  timestamp: "2025-09-01T08:00:02.000Z",
  type: "gemini",
  content: text,
  ...(toolCalls ? { toolCalls } : {}),
});
const gCall = (status: string, result?: unknown) => ({
  id: "read_file-1",
  name: "read_file",
  args: { absolute_path: "/p/a.txt" },
  status,
  timestamp: "2025-09-01T08:00:03.000Z",
  ...(result ? { result } : {}),
});

Deno.test("readTranscript() reads Gemini CLI's one-object chats and its JSON Lines the same", () => {
  const done = gCall("success", [{
    functionResponse: { id: "read_file-1", name: "read_file", response: { output: "apple" } },
  }]);
  const messages = [
    gUser("m1", "read a.txt"),
    gModel("m2", "Reading.", [done]),
    gModel("m3", "It says apple."),
  ];
  const document = read(JSON.stringify({ ...GEMINI_HEADER, messages }, null, 2), "session.json");
  const jsonl = read(
    lines(
      { ...GEMINI_HEADER, kind: "main" },
      messages[0],
      gUser("gone", "a rewound message"),
      { $rewindTo: "gone" },
      gModel("m2", "Reading.", [gCall("executing")]),
      { $set: { lastUpdated: "2025-09-01T08:01:00.000Z" } },
      messages[1], // the same id again once its call finished: this copy wins
      messages[2],
    ),
    "session.jsonl",
  );
  const expected = [
    "user: read a.txt",
    "assistant: Reading.",
    'call read_file {"absolute_path":"/p/a.txt"}',
    "result succeeded: apple",
    "assistant: It says apple.",
  ];
  assertEquals(said(document), expected);
  assertEquals(said(jsonl), expected);
  // A $set with messages replaces them all (a checkpoint).
  const checkpoint = read(
    lines(GEMINI_HEADER, gUser("m1", "old"), { $set: { messages: [gUser("m9", "new")] } }),
  );
  assertEquals(said(checkpoint), ["user: new"]);
});

Deno.test("readTranscript() finds a Gemini CLI chat's folder by .project_root or by its hash", () => {
  const text = JSON.stringify({ ...GEMINI_HEADER, messages: [gUser("m1", "hi")] });
  assertEquals(read(text, "c.json", { projectRoot: "/home/u/app" }).cwd, "/home/u/app");
  assertEquals(
    read(text, "c.json", { folderOf: (hash: string) => hash === "ab12" ? "/here" : undefined }).cwd,
    "/here",
  );
  assertEquals(read(text, "c.json").cwd, undefined);
});

Deno.test("readTranscript() reads an opencode export after its notice line", () => {
  const part = (type: string, extra: object) => ({
    id: `prt_${type}`,
    sessionID: "ses_1",
    messageID: "msg_2",
    type,
    ...extra,
  });
  const doc = {
    info: {
      id: "ses_1",
      directory: "/home/u/app",
      title: "t",
      version: "1.0.150",
      time: { created: 1756800000000, updated: 1756800600000 },
    },
    messages: [
      {
        info: { id: "msg_1", sessionID: "ses_1", role: "user", time: { created: 1756800000000 } },
        parts: [{ type: "text", text: "run the tests" }],
      },
      {
        info: {
          id: "msg_2",
          sessionID: "ses_1",
          role: "assistant",
          time: { created: 1756800001000 },
          modelID: "qwen3",
          path: { cwd: "/home/u/app", root: "/home/u/app" },
        },
        parts: [
          part("step-start", {}),
          part("text", { text: "Running them." }),
          part("tool", {
            callID: "c1",
            tool: "bash",
            state: {
              status: "running",
              input: { command: "npm test" },
              time: { start: 1756800002000 },
            },
          }),
        ],
      },
    ],
  };
  const session = read(
    `Exporting session: ses_1\n${JSON.stringify(doc, null, 2)}\n`,
    "export.json",
  );
  assertEquals(session.source, {
    agent: "opencode",
    id: "ses_1",
    file: "export.json",
    version: "1.0.150",
  });
  assertEquals(session.skipped, [{ line: 1, reason: "lines before the JSON" }]);
  assertEquals(said(session).slice(0, 3), [
    "user: run the tests",
    "assistant: Running them.",
    'call bash {"command":"npm test"}',
  ]);
  assertEquals(session.interrupted, 1);
  assertEquals([session.cwd, session.model], ["/home/u/app", "qwen3"]);
});

Deno.test("readTranscript() reads Codex's three rollout layouts into the same conversation", () => {
  const call = {
    type: "function_call",
    name: "shell",
    arguments: '{"command":["ls"]}',
    call_id: "call_1",
  };
  const user = {
    type: "message",
    role: "user",
    content: [{ type: "input_text", text: "list files" }],
  };
  const answer = {
    type: "message",
    role: "assistant",
    content: [{ type: "output_text", text: "Two files." }],
  };
  const document = read(
    JSON.stringify(
      {
        session: { timestamp: "2025-04-20T10:00:00.000Z", id: "c-1", instructions: "" },
        items: [user, call, {
          type: "function_call_output",
          call_id: "call_1",
          output: JSON.stringify({
            output: "a\nb",
            metadata: { exit_code: 0, duration_seconds: 0.1 },
          }),
        }, answer],
      },
      null,
      2,
    ),
    "rollout.json",
  );
  const bare = read(lines(
    { id: "c-1", timestamp: "2025-06-01T10:00:00.000Z", instructions: null },
    user,
    call,
    { type: "function_call_output", call_id: "call_1", output: "a\nb" },
    answer,
    { record_type: "state" },
  ));
  const wrap = (type: string, payload: unknown) => ({
    timestamp: "2025-09-01T10:00:00.000Z",
    type,
    payload,
  });
  const wrapped = read(lines(
    wrap("session_meta", {
      id: "c-1",
      timestamp: "2025-09-01T10:00:00.000Z",
      cwd: "/w",
      cli_version: "0.46.0",
    }),
    wrap("turn_context", { cwd: "/w", model: "gpt-5-codex" }),
    wrap("response_item", {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "<environment_context>\n</environment_context>" }],
    }),
    wrap("event_msg", { type: "user_message", message: "list files" }),
    wrap("response_item", user),
    wrap("response_item", call),
    wrap("response_item", { type: "function_call_output", call_id: "call_1", output: "a\nb" }),
    wrap("response_item", answer),
  ));
  const expected = [
    "user: list files",
    'call shell {"command":["ls"]}',
    "result succeeded: a\nb",
    "assistant: Two files.",
  ];
  for (const session of [document, bare, wrapped]) assertEquals(said(session), expected);
  assertEquals([wrapped.cwd, wrapped.model, wrapped.source.version], [
    "/w",
    "gpt-5-codex",
    "0.46.0",
  ]);
  assertEquals(wrapped.skipped.map((line) => line.reason), [
    "messages of context Codex added",
    "event_msg lines (the terminal's copy)",
  ]);
});

Deno.test("TranscriptBuilder answers open calls before the conversation goes on, and renames repeated ids", () => {
  const builder = new TranscriptBuilder("codex", "2025-01-01T00:00:00.000Z");
  builder.user("go");
  builder.call("c1", "shell", "{}");
  builder.call("c2", "shell", "{}");
  builder.result("c1", "one");
  // A call after results starts a new block: c2, still open, is answered first.
  const again = builder.call("c1", "shell", "{}");
  builder.result("c1", "three");
  builder.result("c2", "late");
  const session = builder.session({
    source: { agent: "codex", id: "x", file: "f" },
    startedAt: "2025-01-01T00:00:00.000Z",
  });
  assertEquals(again, "c1_2");
  assertEquals(session.interrupted, 1);
  assertEquals(session.keptAsText, 1);
  const kinds = session.events.map((event) =>
    event.type === "tool_call_finished"
      ? `${event.type}:${event.payload.callId}:${event.payload.status}`
      : event.type
  );
  assertEquals(kinds, [
    "session_started",
    "user_message",
    "tool_call_requested",
    "tool_call_requested",
    "tool_call_finished:c1:succeeded",
    "tool_call_finished:c2:interrupted",
    "tool_call_requested",
    "tool_call_finished:c1_2:succeeded",
    "user_message",
  ]);
  const stray = session.events.at(-1);
  assert(stray?.type === "user_message" && stray.payload.content.includes("(c2): late"));
});
