// The approval prompt's "Edit" answer (src/ui/edit_prompt.ts through createPrompter): the
// line editor for one short argument, the editor for the rest, checks that keep the user's
// text, the changed call shown before it is allowed, and a way back to the model's call.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type { EditCheck, KeyIO, PromptRequest } from "../../src/permissions/prompt_types.ts";
import { createPrompter } from "../../src/ui/prompter.ts";
import { inlineArgument } from "../../src/ui/edit_prompt.ts";
import { argumentsFileText, FRAME_LINES } from "../../src/ui/arguments_file.ts";

/** Scripted keys and lines; records output and the initial text each line was offered with. */
function scriptedIO(keys: string[], lines: string[] = []) {
  const io = {
    output: "",
    initials: [] as (string | undefined)[],
    readKey: () => Promise.resolve(keys.shift() ?? ""),
    readLine: (prompt: string, initial?: string) => {
      io.output += prompt;
      io.initials.push(initial);
      return Promise.resolve(lines.length > 0 ? lines.shift()! : null);
    },
    write: (text: string) => {
      io.output += text;
    },
  };
  return io satisfies KeyIO;
}

/** A check as the approver makes it: `command` must be a string; "rm *" is denied. */
function check(args: unknown): Promise<EditCheck> {
  const command = (args as { command?: unknown }).command;
  if (typeof command !== "string") {
    return Promise.resolve({ ok: false, problem: "invalid", message: "command: expected string" });
  }
  if (command.startsWith("rm ")) {
    return Promise.resolve({ ok: false, problem: "denied", message: "no deleting" });
  }
  return Promise.resolve({ ok: true, value: { cwd: ".", ...(args as object) } });
}

const commandRequest = (command: string): PromptRequest => ({
  tool: "run_command",
  args: { command, cwd: "." },
  risk: "high",
  alwaysFile: "p",
  edit: { sent: { command }, check },
});

const writeRequest: PromptRequest = {
  tool: "write_file",
  args: { path: "a.txt", content: "A\n" },
  risk: "medium",
  alwaysFile: "p",
  edit: {
    sent: { path: "a.txt", content: "A\n" },
    check: (args) => {
      const path = (args as { path?: unknown }).path;
      return Promise.resolve(
        typeof path === "string"
          ? { ok: true, value: args }
          : { ok: false, problem: "invalid", message: "path: expected string" },
      );
    },
  },
};

Deno.test("createPrompter() edits one short argument on the line and allows the changed call once", async () => {
  const io = scriptedIO(["5", "1"], ["git status --short"]);
  const prompter = createPrompter({ io, color: false });
  const answer = await prompter.ask(commandRequest("git status"));
  assertEquals(answer, { kind: "edit", args: { cwd: ".", command: "git status --short" } });
  assertEquals(io.initials, ["git status"]);
  assert(io.output.includes("[4] Deny  [5] Edit\n"), io.output);
  assert(
    io.output.includes(
      'Changed call  run_command  {"cwd": ".", "command": "git status --short"}  risk: HIGH\n' +
        "Your changes to the model's call:\n" +
        '  ~ command: "git status" → "git status --short"\n' +
        "[1] Allow the changed call once  [4] Deny  [5] Edit again  [0] Back to the model's call\n",
    ),
    io.output,
  );
  assert(io.output.includes("Allowed the changed call once\n"), io.output);
});

Deno.test("createPrompter() says a deny rule denies the changed call; edit again starts from the user's text", async () => {
  const io = scriptedIO(["5", "5", "1"], ["rm -rf /", "ls"]);
  const answer = await createPrompter({ io, color: false }).ask(commandRequest("git status"));
  assertEquals(answer, { kind: "edit", args: { cwd: ".", command: "ls" } });
  assert(io.output.includes("A policy rule denies the changed call: no deleting\n"), io.output);
  assertEquals(io.initials, ["git status", "rm -rf /"]);
});

Deno.test("createPrompter() goes back to the model's call from an edit, then takes another answer", async () => {
  const io = scriptedIO(["5", "0", "4"], ["git log", ""]);
  const answer = await createPrompter({ io, color: false }).ask(commandRequest("git status"));
  assertEquals(answer, { kind: "deny" });
  assertEquals(io.output.match(/Permission request/g)?.length, 2, io.output);
  assert(io.output.includes("Back to the model's call\n"), io.output);
});

Deno.test("createPrompter() treats an empty line and an unchanged call as going back", async () => {
  const io = scriptedIO(["5", "5", "1"], ["", "git status"]);
  const answer = await createPrompter({ io, color: false }).ask(commandRequest("git status"));
  assertEquals(answer, { kind: "once" });
  assert(io.output.includes("Edit cancelled: back to the model's call\n"), io.output);
  assert(io.output.includes("No change: back to the model's call\n"), io.output);
});

Deno.test("createPrompter() opens the editor for several arguments and reopens it on invalid JSON with the user's text", async () => {
  const io = scriptedIO(["5", "5", "1"]);
  const opened: string[] = [];
  const saves = [
    (text: string) => text.replace('"a.txt"', '"b.txt",'),
    (text: string) => text.replace('"b.txt",,', '"b.txt",'),
  ];
  const prompter = createPrompter({
    io,
    color: false,
    editor: (text) => {
      opened.push(text);
      return Promise.resolve(saves.shift()!(text));
    },
  });
  const answer = await prompter.ask(writeRequest);
  assertEquals(answer, { kind: "edit", args: { path: "b.txt", content: "A\n" } });
  assertEquals(opened[0], argumentsFileText("write_file", writeRequest.args));
  assert(opened[1]?.includes('"b.txt",,'), opened[1]);
  assert(
    io.output.includes("The changed arguments are not valid JSON: line 7, column 19:"),
    io.output,
  );
  assert(io.output.includes('  ~ path: "a.txt" → "b.txt"\n'), io.output);
});

Deno.test("createPrompter() reports a schema error of the edited arguments and can deny after", async () => {
  const io = scriptedIO(["5", "0", "4"], ["not now"]);
  const prompter = createPrompter({
    io,
    color: false,
    editor: (text) => Promise.resolve(text.replace('"a.txt"', "5")),
  });
  assertEquals(await prompter.ask(writeRequest), { kind: "deny", reason: "not now" });
  assert(
    io.output.includes(
      "The changed arguments do not fit write_file's schema: path: expected string\n",
    ),
  );
});

Deno.test("createPrompter() shows a multi-line change as a diff and an empty file as going back", async () => {
  const io = scriptedIO(["5", "0", "5", "2"]);
  const saves = [
    (text: string) => text.replace('"A\\n"', '"A\\nB\\n"'),
    () => "// nothing\n",
  ];
  const prompter = createPrompter({
    io,
    color: false,
    editor: (text) => Promise.resolve(saves.shift()!(text)),
  });
  assertEquals(await prompter.ask(writeRequest), { kind: "session" });
  assert(io.output.includes("  ~ content:\n    @@ -1,1 +1,2 @@\n     A\n    +B\n"), io.output);
  assert(io.output.includes("Edit cancelled: the file was empty: back to the model's call\n"));
});

Deno.test("createPrompter() offers no Edit without the request's edit seam", async () => {
  const { edit: _, ...plain } = commandRequest("git status");
  const io = scriptedIO(["5", "1"]);
  assertEquals(await createPrompter({ io, color: false }).ask(plain), { kind: "once" });
  assert(!io.output.includes("[5] Edit"), io.output);
  assert(io.output.includes("5 is not available for this call"), io.output);
});

Deno.test("inlineArgument() leaves control, bidi and long text to the editor, which shows it escaped", () => {
  // A model's command that would act on the line rather than show (Enter, an escape sequence,
  // a bidi override) is never typed into it.
  for (const command of ["ls\rrm -rf ~", "ls\x1b[2K", "ls \u202erm", "ls\n", "x".repeat(201)]) {
    assertEquals(inlineArgument(commandRequest(command)), undefined, JSON.stringify(command));
  }
  assertEquals(inlineArgument(commandRequest("x".repeat(200))), "command");
  const text = argumentsFileText("run_command", { command: "ls\rrm \u202e -rf ~" });
  assert(text.includes('"command": "ls\\rrm \\u202e -rf ~"'), text);
});

Deno.test("argumentsFileText() keeps the model's text out of the first and last lines, where modelines are read", () => {
  const modeline = " vim: set shell=/tmp/x.sh: ";
  const text = argumentsFileText("write_file", {
    content: modeline,
    path: modeline,
    more: [modeline, modeline, modeline, modeline, modeline, modeline],
  });
  const lines = text.replace(/\n$/, "").split("\n");
  for (const line of [...lines.slice(0, FRAME_LINES), ...lines.slice(-FRAME_LINES)]) {
    assert(line.startsWith("//") && !line.includes("vim:"), line);
  }
});

Deno.test("createPrompter() shows the changed call's file diff from its preview of the changed arguments", async () => {
  const io = scriptedIO(["5", "1"]);
  const previewed: unknown[] = [];
  const prompter = createPrompter({
    io,
    color: false,
    editor: (text) => Promise.resolve(text.replace('"A\\n"', '"B\\n"')),
  });
  const answer = await prompter.ask({
    ...writeRequest,
    edit: {
      ...writeRequest.edit!,
      preview: (args) => {
        previewed.push(args);
        const { path, content } = args as { path: string; content: string };
        return Promise.resolve({ change: { path, before: "A\n", after: content } });
      },
    },
  });
  assertEquals(answer, { kind: "edit", args: { path: "a.txt", content: "B\n" } });
  assertEquals(previewed, [{ path: "a.txt", content: "B\n" }]);
  const changed = io.output.slice(io.output.indexOf("Changed call"));
  assert(changed.includes("- A") && changed.includes("+ B"), changed);
});
