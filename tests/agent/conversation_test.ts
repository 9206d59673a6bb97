// Unit tests of Conversation (src/agent/conversation.ts): the recorder-then-display sink, the
// conversation state, the context budget (fit and warnings) and the repeated-failure stop.
// Real parts throughout: the ScriptedProvider, a ToolHost over fixture plugins and, in one
// test, the SQLite session store.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { Conversation } from "../../src/agent/conversation.ts";
import type { ConversationParts } from "../../src/agent/conversation_parts.ts";
import type { LoopEvent } from "../../src/agent/loop_events.ts";
import type { TurnStage } from "../../src/agent/turn_stage.ts";
import {
  makeToolResult,
  type Message,
  toolCallMessage,
  toolResultMessage,
} from "../../src/messages.ts";
import {
  answer,
  callTools,
  ScriptedProvider,
  type ScriptedStep,
} from "../../src/providers/scripted.ts";
import type { ToolHost } from "../../src/sandbox/workers/tool_host.ts";
import type { SessionRecorder } from "../../src/agent/session_recorder.ts";
import { openTestStore } from "../helpers/session_store.ts";
import { repairArguments } from "../../src/agent/repair_arguments.ts";
import { EventLog, openLoopHost, RecordingApprover, toolScope } from "../helpers/loop_host.ts";

/** A SessionRecorder that keeps the events in memory. */
class MemoryRecorder implements SessionRecorder {
  readonly id = "memory";
  readonly events: LoopEvent[] = [];
  ended = false;

  record(event: LoopEvent): void {
    this.events.push(event);
  }

  end(): void {
    this.ended = true;
  }
}

interface Setup {
  provider: ScriptedProvider;
  recorder: MemoryRecorder;
  display: EventLog;
  parts: ConversationParts;
}

function setup(
  host: ToolHost,
  steps: ScriptedStep[],
  extra: Partial<ConversationParts> = {},
): Setup {
  const provider = new ScriptedProvider(steps);
  const recorder = new MemoryRecorder();
  const parts: ConversationParts = {
    provider,
    tools: toolScope(host),
    approver: new RecordingApprover(),
    recorder,
    limits: { maxIterations: 10, maxToolCalls: 15 },
    window: {},
    stages: { call: [], turn: [] },
    ...extra,
  };
  return { provider, recorder, display: new EventLog(), parts };
}

const signal = () => new AbortController().signal;

const failCall = (how = "error") => callTools([{ name: "fail", args: { how } }]);

// The tests below share one tool host: each would otherwise start its own sandbox worker and
// load the fixture plugins, which costs more than what it checks. Each step builds its own
// parts; the host holds no state between calls but its workers.
Deno.test("Conversation over one tool host (the fixture plugins, no grants)", async (t) => {
  await using h = await openLoopHost();
  await t.step("Conversation.start() records the system prompt as the first message", () => {
    const { recorder, parts } = setup(h.host, []);
    const conversation = Conversation.start(parts, "You are terse");
    const system: Message = { kind: "system", content: "You are terse" };
    assertEquals(conversation.messages, [system]);
    assertEquals(conversation.state, {});
    assertEquals(recorder.events, [{ type: "message", message: system }]);
    assertEquals(conversation.running, false);
  });

  await t.step(
    "Conversation.send() gives every event to the recorder before the display",
    async () => {
      const { provider, recorder, parts } = setup(h.host, [
        callTools([{ name: "echo", args: { text: "a" } }], "Checking"),
        answer("Done"),
      ]);
      const conversation = Conversation.start(parts, "sys");
      const shown: LoopEvent[] = [];
      let recordedFirst = true;
      const outcome = await conversation.send("go", (event) => {
        // The recorder already holds this event when the display sees it.
        recordedFirst &&= recorder.events.at(-1) === event;
        shown.push(event);
      }, signal());

      assertEquals([outcome.stopReason, outcome.text, outcome.iterations], ["answered", "Done", 2]);
      assert(recordedFirst, "an event reached the display before the recorder");
      assertEquals(recorder.events.slice(1), shown);
      assertEquals(
        shown.map((e) => e.type).filter((t) => t !== "state_changed"),
        [
          "message",
          "turn_started",
          "text_delta",
          "message",
          "message",
          "permission_decided",
          "tool_started",
          "tool_finished",
          "message",
          "turn_started",
          "text_delta",
          "message",
          "done",
        ],
      );
      assertEquals(conversation.messages.map((m) => m.kind), [
        "system",
        "user",
        "assistant",
        "tool_call",
        "tool_result",
        "assistant",
      ]);
      // Without a context length the messages go to the provider unchanged.
      assertEquals(provider.requests[1], conversation.messages.slice(0, 5));
      assertEquals(recorder.ended, false);
    },
  );

  await t.step("Conversation.send() is running only while the loop runs", async () => {
    let during: boolean | undefined;
    const { parts } = setup(h.host, [() => {
      during = conversation.running;
      return answer("ok");
    }]);
    const conversation = Conversation.start(parts, "sys");
    await conversation.send("hi", () => {}, signal());
    assertEquals([during, conversation.running], [true, false]);
  });

  await t.step(
    "Conversation.send() adds a turn stage's notes to the user's message, each once",
    async () => {
      const news = ["[Background jobs since the last message: j1 exited 1 after 4s: npm test]"];
      const jobNews: TurnStage = {
        name: "job_news",
        send(message) {
          message.notes.push(...news.splice(0));
          return Promise.resolve(undefined);
        },
      };
      const { provider, parts } = setup(h.host, [answer("a"), answer("b")], {
        stages: { call: [], turn: [jobNews] },
      });
      const conversation = Conversation.start(parts, "sys");
      await conversation.send("first", () => {}, signal());
      await conversation.send("second", () => {}, signal());
      const users = provider.requests.map((request) => request.at(-1)?.content);
      assertEquals(users, [
        "first\n\n[Background jobs since the last message: j1 exited 1 after 4s: npm test]",
        "second",
      ]);
    },
  );

  await t.step(
    "Conversation.send() keeps the tool state across turns and clear() resets it",
    async () => {
      const { parts } = setup(h.host, [
        callTools([{ name: "add_task", args: { title: "one" } }]),
        answer("added"),
        callTools([{ name: "add_task", args: { title: "two" } }]),
        answer("added again"),
      ]);
      const conversation = Conversation.start(parts, "sys");
      await conversation.send("add one", () => {}, signal());
      assertEquals(conversation.state, { tasks: [{ title: "one", done: false }] });
      const second = await conversation.send("add two", () => {}, signal());
      assertEquals(second.toolCalls[0]?.result.data, 'Added "two" (2 tasks)');
      assertEquals(conversation.state, {
        tasks: [{ title: "one", done: false }, { title: "two", done: false }],
      });
      assertEquals(conversation.messages.length, 1 + 2 * 5);

      conversation.clear();
      assertEquals(conversation.messages, [{ kind: "system", content: "sys" }]);
      assertEquals(conversation.state, {});
    },
  );

  await t.step("Conversation.send() repairs arguments with the stages' parser", async () => {
    const { parts } = setup(h.host, [
      callTools([{ name: "echo", args: "{'text': 'x', limit: '3',}" }]),
      answer("ok"),
    ], { stages: { call: [], turn: [], parse: repairArguments } });
    const conversation = Conversation.start(parts, "sys");
    const outcome = await conversation.send("go", () => {}, signal());
    assertEquals(
      outcome.toolCalls.map((c) => [c.status, c.arguments, c.result.data]),
      [["succeeded", { text: "x", limit: 3 }, "xxx"]],
    );
  });

  await t.step("Conversation.send() stops after the third identical failing call", async () => {
    const { provider, parts } = setup(h.host, [
      failCall(),
      failCall(),
      failCall(),
      answer("gave up"),
    ]);
    const conversation = Conversation.start(parts, "sys");
    const display = new EventLog();
    const outcome = await conversation.send("go", display.sink, signal());

    const user = 'Stopped: the model called "fail" 3 times with the same failing arguments ' +
      "(internal_error); rephrase your request or type /continue";
    assertEquals([outcome.stopReason, outcome.errorMessage, outcome.iterations], [
      "error",
      user,
      3,
    ]);
    assertEquals(outcome.toolCalls.map((c) => c.result.error_message), [
      "Something broke",
      "Something broke",
      'Something broke. This call to "fail" failed the same way 3 times: stop repeating it. ' +
      "Change the arguments, use another tool, or answer with what you know",
    ]);
    assertEquals(provider.requests.length, 3);
    assertEquals(display.events.at(-1), {
      type: "done",
      stopReason: "error",
      text: "",
      errorMessage: user,
    });
    // The model reads the stop message in the last result on its next turn.
    const last = conversation.messages.at(-1);
    assert(last?.kind === "tool_result" && last.content.includes("stop repeating it"));

    // Counts start again with the next user message: one more failure does not stop.
    const next = await conversation.send("try once more", () => {}, signal());
    assertEquals([next.stopReason, next.text], ["answered", "gave up"]);
  });

  await t.step(
    "Conversation.send() counts only identical failures and honours the repeated-failure limit",
    async () => {
      const varied = setup(h.host, [
        failCall("error"),
        failCall("type_error"),
        failCall("error"),
        answer("varied"),
      ]);
      const outcome = await Conversation.start(varied.parts, "sys").send("go", () => {}, signal());
      assertEquals([outcome.stopReason, outcome.text, outcome.iterations], [
        "answered",
        "varied",
        4,
      ]);

      // Identical calls in one model turn count too; the limit is a part.
      const strict = setup(h.host, [
        callTools([
          { name: "echo", args: {} },
          { name: "echo", args: {} },
          { name: "echo", args: { text: "never" } },
        ]),
        answer("never asked"),
      ], { limits: { maxIterations: 10, maxToolCalls: 15, repeatedFailures: 2 } });
      const stopped = await Conversation.start(strict.parts, "sys").send("go", () => {}, signal());
      assertEquals([stopped.stopReason, stopped.errorMessage], [
        "error",
        'Stopped: the model called "echo" 2 times with the same failing arguments ' +
        "(validation_failed); rephrase your request or type /continue",
      ]);
      assertEquals(stopped.toolCalls.map((c) => c.status), ["invalid", "invalid", "cancelled"]);
      assertEquals(strict.provider.requests.length, 1);
    },
  );

  await t.step(
    "Conversation.send() shortens old tool results to fit the context and warns",
    async () => {
      const { provider, recorder, parts } = setup(h.host, [answer("ok")], {
        window: { contextLength: 2048 },
      });
      const call = { id: "c0", name: "echo", arguments: '{"text":"x"}' };
      const big = toolResultMessage("c0", "echo", makeToolResult({ data: "x".repeat(20_000) }));
      const messages: Message[] = [{ kind: "system", content: "sys" }, toolCallMessage(call), big];
      const conversation = new Conversation(parts, { messages });
      const display = new EventLog();
      await conversation.send("next", display.sink, signal());

      const note = "Shortened 1 old tool result (about 4953 tokens) to fit the 2048-token context";
      assertEquals(display.of("warning"), [{ type: "warning", message: note }]);
      assertEquals(recorder.events.filter((e) => e.type === "warning"), display.of("warning"));
      // The warning comes right after the turn starts, before the model answers.
      assertEquals(display.types().slice(0, 3), ["message", "turn_started", "warning"]);
      const sent = provider.requests[0]?.[2];
      assert(sent?.kind === "tool_result");
      assertEquals(
        sent.data.result.data,
        `[Shortened to save context: 1 lines, 20000 chars, starting "${"x".repeat(80)}"]. ` +
          'Call echo {"text":"x"} again to see it',
      );
      // The conversation itself keeps the full result.
      assertEquals(conversation.messages[2], big);
    },
  );

  await t.step("Conversation.send() warns once when the context is nearly full", async () => {
    const usage = { promptTokens: 7900, completionTokens: 200 };
    const { recorder, parts } = setup(h.host, [
      { ...answer("one"), usage },
      { ...answer("two"), usage },
    ], { window: { contextLength: 10_000 } });
    const conversation = Conversation.start(parts, "sys");
    const first = new EventLog();
    await conversation.send("hi", first.sink, signal());
    const second = new EventLog();
    await conversation.send("again", second.sink, signal());

    const warning = {
      type: "warning",
      message:
        "The conversation uses 8100 of 10000 context tokens (81%): old tool output will be " +
        "shortened to make room. Type /compact to continue from a summary, or start a new session",
    };
    assertEquals(first.of("warning"), [warning]);
    assertEquals(first.types().slice(2, 5), ["text_delta", "usage", "warning"]);
    assertEquals(second.of("warning"), []);
    assertEquals(recorder.events.filter((e) => e.type === "warning"), [warning]);
  });

  await t.step(
    "Conversation.send() warns when the server read far fewer prompt tokens than sent",
    async () => {
      const { parts } = setup(h.host, [
        { ...answer("ok"), usage: { promptTokens: 100, completionTokens: 5 } },
      ], { window: { contextLength: 100_000 } });
      const conversation = Conversation.start({
        ...parts,
        window: { ...parts.window, contextRaise: "--num-ctx" },
      }, "sys");
      const display = new EventLog();
      await conversation.send("y".repeat(8000), display.sink, signal());

      // About (1 + 4) + (2000 + 4) tokens of messages were sent (the system prompt and the user
      // message), plus the tool schemas as sent, a quarter of their JSON's length.
      const schemas = JSON.stringify(
        h.host.list().map(({ name, description, parameters }) => ({
          type: "function",
          function: { name, description, parameters },
        })),
      );
      const sent = 2009 + Math.ceil(schemas.length / 4);
      assert(sent > 2500, `the fixture tools' schemas are about ${sent - 2009} tokens`);
      assertEquals(display.of("warning"), [{
        type: "warning",
        message:
          `The model server read 100 prompt tokens but about ${sent} were sent: it probably ` +
          "cut the conversation to fit its context. Raise --num-ctx or start " +
          "a new session",
      }]);
    },
  );

  await t.step(
    "Conversation.send() without a context length neither shortens nor warns",
    async () => {
      const usage = { promptTokens: 1, completionTokens: 999_999 };
      const { provider, parts } = setup(h.host, [{ ...answer("ok"), usage }]);
      const big = toolResultMessage("c0", "echo", makeToolResult({ data: "x".repeat(20_000) }));
      const conversation = new Conversation(parts, { messages: [big], state: { tasks: [] } });
      const display = new EventLog();
      await conversation.send("y".repeat(8000), display.sink, signal());
      assertEquals(display.of("warning"), []);
      assertEquals(provider.requests[0]?.[0], big);
      assertEquals(conversation.state, { tasks: [] });
    },
  );

  await t.step(
    "Conversation.send() with the SQLite recorder leaves a session that loads back",
    async () => {
      using store = openTestStore(h.workspace);
      const writer = store.startSession({
        model: "scripted",
        baseUrl: "scripted",
        cwd: h.workspace,
        grants: "",
        provider: "scripted",
      });
      if (!writer.ok) throw new Error(JSON.stringify(writer.error));
      const { parts } = setup(h.host, [
        callTools([
          { name: "add_task", args: { title: "one" } },
          { name: "nope", args: {} },
        ], "Planning"),
        answer("Planned"),
      ], { recorder: writer.value });
      const conversation = Conversation.start(parts, "sys");
      await conversation.send("plan", () => {}, signal());

      const loaded = store.loadSession(writer.value.id!);
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
      assertEquals(loaded.value.messages, conversation.messages);
      assertEquals(loaded.value.state, { tasks: [{ title: "one", done: false }] });
      assertEquals(loaded.value.interrupted, []);
    },
  );
});
