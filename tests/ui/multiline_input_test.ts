// The REPL's multi-line composer on its own: bracketed paste in both key shapes (Deno's split
// marker and Node's whole one), insertion at the cursor, new lines, and the message sent.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { Composer, type ComposerView, type KeyPress } from "../../src/ui/multiline_input.ts";

function view(initial = "", cursor = initial.length) {
  const state = { text: initial, cursor, committed: [] as string[][] };
  const v: ComposerView = {
    line: () => ({ text: state.text, cursor: state.cursor }),
    setLine: (text) => {
      state.text = text;
      state.cursor = text.length;
    },
    commitLines: (shown) => state.committed.push([...shown]),
  };
  return { v, state };
}

/** Feeds keys the way node:readline's keypress events would, returning the pasted text. */
function feed(composer: Composer, keys: [string | undefined, KeyPress][]): string | undefined {
  let pasted: string | undefined;
  for (const [sequence, key] of keys) {
    const result = composer.paste(sequence, key);
    if (typeof result === "string") pasted = result;
  }
  return pasted;
}

const chars = (text: string): [string, KeyPress][] =>
  [...text].map((c) => [c, { sequence: c, name: c === "\r" ? "return" : c }]);

Deno.test("Composer.paste() collects a paste between Deno's split markers", () => {
  const composer = new Composer(view().v);
  const pasted = feed(composer, [
    [undefined, { sequence: "\x1b[200", code: "[200" }],
    ["~", { sequence: "~" }],
    ...chars("a~b\r\nc\rd"),
    [undefined, { sequence: "\x1b[201", code: "[201" }],
    ["~", { sequence: "~" }],
  ]);
  assertEquals(pasted, "a~b\nc\nd");
  // Keys after the paste are keys again.
  assertEquals(composer.paste("x", { sequence: "x" }), false);
});

Deno.test("Composer.paste() collects a paste between whole markers", () => {
  const composer = new Composer(view().v);
  const pasted = feed(composer, [
    ["\x1b[200~", { sequence: "\x1b[200~" }],
    ...chars("one\rtwo"),
    ["\x1b[201~", { sequence: "\x1b[201~" }],
  ]);
  assertEquals(pasted, "one\ntwo");
});

Deno.test("Composer.insert() puts pasted lines at the cursor and keeps the rest editable", () => {
  const { v, state } = view("say  now", 4);
  const composer = new Composer(v);
  composer.insert("first\nsecond\nthird");
  assertEquals(state.committed, [["say first", "second"]]);
  assertEquals(state.text, "third now");
  assertEquals(composer.submit(state.text), "say first\nsecond\nthird now");
  assertEquals(composer.composing, false);
  // A paste without a newline goes into the edited line, at the cursor.
  state.text = "ab";
  state.cursor = 1;
  composer.insert("XY");
  assertEquals(state.text, "aXYb");
  assertEquals(state.committed.length, 1);
});

Deno.test("Composer.insert() shows a long paste as [pasted N lines]", () => {
  const { v, state } = view("look: ");
  const composer = new Composer(v);
  const lines = Array.from({ length: 9 }, (_, i) => `l${i}`);
  composer.insert(`${lines.join("\n")}\n`);
  assertEquals(state.committed, [["look: [pasted 9 lines]"]]);
  assertEquals(state.text, "");
  assertEquals(composer.submit("end"), `look: ${lines.join("\n")}\nend`);
});

Deno.test("Composer.key() makes Alt-Enter and Ctrl-J new lines, and clear() forgets them", () => {
  const { v, state } = view("one");
  const composer = new Composer(v);
  assertEquals(composer.key("\x1b\r", { sequence: "\x1b\r", name: "return", meta: true }), true);
  state.text = "two";
  assertEquals(composer.key("\n", { sequence: "\n", name: "enter" }), true);
  assertEquals(composer.key("\r", { sequence: "\r", name: "return" }), false);
  assertEquals(composer.submit("three"), "one\ntwo\nthree");
  composer.key("\n", { sequence: "\n", name: "enter" });
  composer.clear();
  assertEquals(composer.submit("alone"), "alone");
});

Deno.test("Composer.key() leaves the LF of a CR LF Enter to readline", () => {
  const { v } = view("one");
  const composer = new Composer(v);
  assertEquals(composer.key("\r", { sequence: "\r", name: "return" }), false);
  assertEquals(composer.key("\n", { sequence: "\n", name: "enter" }), false);
  assertEquals(composer.composing, false);
});
