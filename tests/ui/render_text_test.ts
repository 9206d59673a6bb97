// The text renderer shows a running tool's line (its call, the seconds so far and the last
// line of output it reported) on a terminal, and replaces it with the finished line.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createTextRenderer } from "../../src/ui/render_text.ts";
import { createStyle } from "../../src/ui/style.ts";
import { makeToolResult } from "../../src/messages.ts";
import type { LoopEvent } from "../../src/agent/loop_events.ts";

Deno.test("createTextRenderer() shows a running tool with elapsed time and its last output line", async () => {
  let clock = 1_000;
  const notes: string[] = [];
  const renderer = createTextRenderer({
    write: () => {},
    note: (text) => notes.push(text),
    style: createStyle(false),
    spinner: true,
    showReasoning: false,
    now: () => clock,
    columns: () => 80,
  });
  try {
    renderer.sink({
      type: "tool_started",
      callId: "c1",
      name: "run_command",
      args: { command: "npm test" },
    });
    assert(notes.at(-1)!.includes('run_command {"command":"npm test"} · 0 s'), notes.at(-1));
    clock += 31_500;
    renderer.sink({
      type: "tool_output",
      callId: "c1",
      name: "run_command",
      text: "compiling\n\x1b[32mtest 12 of 40\x1b[0m\n",
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const running = notes.at(-1)!;
    assert(running.includes("· 31 s · test 12 of 40"), running);
    assert(!running.includes("\x1b[32m"), JSON.stringify(running));
    renderer.sink({
      type: "tool_output",
      callId: "c1",
      name: "run_command",
      text: "x".repeat(200),
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The line never wraps: it fits the terminal's width.
    assert(notes.at(-1)!.replace("\r\x1b[2K", "").length <= 80, notes.at(-1));
    renderer.sink({
      type: "tool_finished",
      callId: "c1",
      name: "run_command",
      args: { command: "npm test" },
      result: makeToolResult({ data: "ok" }),
      display: "",
    });
    const finished = notes.slice(-2).join("");
    assert(finished.startsWith("\r\x1b[2K"), JSON.stringify(finished));
    assert(finished.includes('✓ run_command {"command":"npm test"}'), finished);
    const count = notes.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    assertEquals(notes.length, count, "nothing is redrawn after the tool finished");
  } finally {
    renderer.stop();
  }
});

Deno.test("createTextRenderer() draws no running line without a terminal", () => {
  const notes: string[] = [];
  const renderer = createTextRenderer({
    write: () => {},
    note: (text) => notes.push(text),
    style: createStyle(false),
    spinner: false,
    showReasoning: false,
  });
  renderer.sink({ type: "tool_started", callId: "c1", name: "ls", args: {} });
  assertEquals(notes, []);
  renderer.stop();
});

Deno.test("createTextRenderer() draws one indented live line per running subagent", async () => {
  let clock = 0;
  const notes: string[] = [];
  const renderer = createTextRenderer({
    write: () => {},
    note: (text) => notes.push(text),
    style: createStyle(false),
    spinner: true,
    showReasoning: false,
    now: () => clock,
    columns: () => 100,
  });
  const child = (taskId: string, agent: string, event: LoopEvent): LoopEvent => ({
    type: "subagent",
    callId: `c${taskId}`,
    taskId,
    agent,
    event,
  });
  try {
    renderer.sink({ type: "tool_started", callId: "c1", name: "task", args: { agent: "a" } });
    renderer.sink({ type: "tool_started", callId: "c2", name: "task", args: { agent: "b" } });
    renderer.sink(child("1", "explorer", { type: "turn_started", iteration: 1 }));
    clock += 2_000;
    renderer.sink(child("2", "fixer", {
      type: "tool_started",
      callId: "x",
      name: "read_file",
      args: { path: "a.ts" },
    }));
    // Two frames: the second clears the first's three lines before drawing again.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const drawn = notes.at(-1)!.split("\n");
    assertEquals(drawn.slice(1), [
      "    explorer (task 1) · thinking · 2 s",
      '    fixer (task 2) · read_file {"path":"a.ts"} · 0 s',
    ]);
    assert(notes.at(-1)!.startsWith("\r\x1b[2K\x1b[1A\r\x1b[2K\x1b[1A\r\x1b[2K"), notes.at(-1));
    // A child whose turn ended leaves; its task call's line comes when the call finishes.
    renderer.sink(child("1", "explorer", { type: "done", stopReason: "answered", text: "x" }));
    await new Promise((resolve) => setTimeout(resolve, 150));
    assertEquals(notes.at(-1)!.split("\n").length, 2);
  } finally {
    renderer.stop();
  }
});
