// The approval prompt of a file change on a real pseudo-terminal: edit_file shows the diff of
// what it will write (not its arguments as JSON), and the tool line ends with +N -M.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox } from "../helpers/run_cli.ts";
import { type PtySession, startReplPty } from "../helpers/pty.ts";

/** The REPL on a terminal, reading and writing the workspace, its prompt up. */
function editingRepl(sandbox: CliSandbox, baseUrl: string): Promise<PtySession> {
  return startReplPty(sandbox, [
    "--base-url",
    baseUrl,
    "--model",
    "m",
    "--allow-read=.",
    "--allow-write=.",
  ]);
}

Deno.test({
  name: "REPL on a terminal: edit_file's approval shows the diff, the tool line +N -M",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(join(sandbox.cwd, "a.txt"), "alpha\nbeta\ngamma\n");
    await using server = startFakeLlmServer([
      reply().toolCall("edit_file", { path: "a.txt", old_string: "beta", new_string: "BETA two" }),
      reply().text("edited"),
    ]);
    await using pty = await editingRepl(sandbox, server.baseUrl);
    await pty.type("change beta\r");
    await pty.waitFor((out) => out.includes("[1] Allow once"), "the approval prompt");
    const prompt = pty.output.slice(pty.output.indexOf("Permission request"));
    assert(prompt.includes("a.txt  +1 -1"), prompt);
    assert(prompt.includes("  2     - beta"), prompt);
    assert(prompt.includes("      2 + BETA two"), prompt);
    assert(!prompt.includes("Arguments in full"), prompt);
    await pty.type("1");
    await pty.waitFor((out) => out.includes("edited"), "the answer");
    assert(/Edited a\.txt \(1 occurrence\) \+1 -1/.test(pty.output), pty.output);
    assertEquals(await Deno.readTextFile(join(sandbox.cwd, "a.txt")), "alpha\nBETA two\ngamma\n");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

/** The terminal output from the last approval prompt's request line on (lines end in \n). */
function lastPrompt(output: string): string {
  return output.slice(output.lastIndexOf("Permission request")).replaceAll("\r\n", "\n");
}

Deno.test({
  name: "REPL on a terminal: a new file by its first lines and size, escapes as text, in colour",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    sandbox.env.NO_COLOR = "";
    const content = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join("\n")
      .replace("row 2", "row 2 \x1b]52;c;aGk=\x07\x1b[2J");
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "new.txt", content }),
      reply().text("written"),
    ]);
    await using pty = await editingRepl(sandbox, server.baseUrl);
    await pty.type("write it\r");
    await pty.waitFor((out) => out.includes("[1] Allow once"), "the approval prompt");
    const prompt = lastPrompt(pty.output);
    assert(/new\.txt\S* {2}\S*new file, 30 lines, 2\d\d B/.test(prompt), prompt);
    // Added lines in green, the first 20 of them numbered.
    assert(prompt.includes("\x1b[32m+ row 1\x1b[0m"), prompt);
    assert(prompt.includes("+ row 20") && !prompt.includes("+ row 21"), prompt);
    // The file's escape sequences show as text; none reaches the terminal.
    assert(prompt.includes("+ row 2 \\x1b]52;c;aGk=\\x07\\x1b[2J"), prompt);
    assert(!prompt.includes("\x1b]52") && !prompt.includes("\x1b[2J"), prompt);
    await pty.type("1");
    await pty.waitFor((out) => out.includes("written"), "the answer");
    assert(/Created new\.txt \(\d+ bytes\) \S*\+30\S* \S*-0/.test(pty.output), pty.output);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: a long diff is folded; v shows it whole and the choices again",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    const before = Array.from({ length: 80 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    await Deno.writeTextFile(join(sandbox.cwd, "big.txt"), before);
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", {
        path: "big.txt",
        content: before.replaceAll("line", "LINE"),
      }),
      reply().text("rewritten"),
    ]);
    await using pty = await editingRepl(sandbox, server.baseUrl);
    await pty.type("shout\r");
    await pty.waitFor((out) => out.includes("[1] Allow once"), "the approval prompt");
    const folded = lastPrompt(pty.output);
    assert(folded.includes("big.txt  +80 -80"), folded);
    assert(folded.includes("… 121 more lines: press v to show the whole change"), folded);
    assert(!folded.includes("+ LINE 80"), folded);
    await pty.type("v");
    await pty.waitFor((out) => out.includes("+ LINE 80"), "the whole change");
    const whole = pty.output.slice(pty.output.indexOf("+ LINE 80"));
    await pty.waitFor(
      (out) => out.slice(out.indexOf("+ LINE 80")).includes("[4] Deny"),
      "the choices under the whole change",
    );
    assert(!whole.includes("is not an answer"), whole);
    await pty.type("1");
    await pty.waitFor((out) => out.includes("rewritten"), "the answer");
    assert(pty.output.includes("Overwrote big.txt (631 bytes) +80 -80"), pty.output);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: replace_lines, insert_lines and a plugin's preview show diffs",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(join(sandbox.cwd, "a.txt"), "alpha\nbeta\ngamma\n");
    // A user's plugin that changes one file declares it through preview().
    const plugins = join(sandbox.home, ".config", "harness", "plugins");
    await Deno.mkdir(plugins, { recursive: true });
    await Deno.writeTextFile(
      join(plugins, "upper_file.js"),
      `export default ({ z, defineTool }) => {
  const plan = ({ path }, ctx) => ({ path, content: Deno.readTextFileSync(ctx.resolve(path)).toUpperCase() });
  return defineTool({
    name: "upper_file",
    description: "Upper-case a file.",
    risk: "medium",
    permissions: { read: ["."], write: ["."] },
    parameters: z.object({ path: z.string().describe("File") }),
    preview: plan,
    run(args, ctx) {
      const { path, content } = plan(args, ctx);
      Deno.writeTextFileSync(ctx.resolve(path), content);
      return { output: "done", display: "Upper-cased " + path };
    },
  });
};
`,
    );
    await using server = startFakeLlmServer([
      reply().toolCall("replace_lines", {
        path: "a.txt",
        line_start: 2,
        line_end: 2,
        new_content: "BETA",
      }),
      reply().toolCall("insert_lines", { path: "a.txt", line_start: 1, new_content: "zero" }),
      reply().toolCall("upper_file", { path: "a.txt" }),
      reply().text("all done"),
    ]);
    await using pty = await editingRepl(sandbox, server.baseUrl);
    await pty.type("edit\r");
    const prompts = (out: string) => out.split("[1] Allow once").length - 1;
    await pty.waitFor((out) => prompts(out) === 1, "replace_lines' prompt");
    let prompt = lastPrompt(pty.output);
    assert(prompt.includes("a.txt  +1 -1\n"), prompt);
    assert(prompt.includes("  2     - beta\n") && prompt.includes("      2 + BETA\n"), prompt);
    await pty.type("1");
    await pty.waitFor((out) => prompts(out) === 2, "insert_lines' prompt");
    prompt = lastPrompt(pty.output);
    assert(prompt.includes("a.txt  +1 -0\n"), prompt);
    assert(prompt.includes("      1 + zero\n") && prompt.includes("  2   3   BETA\n"), prompt);
    await pty.type("1");
    await pty.waitFor((out) => prompts(out) === 3, "the plugin's prompt");
    prompt = lastPrompt(pty.output);
    assert(prompt.includes("a.txt  +3 -3\n"), prompt);
    assert(prompt.includes("  1     - zero\n") && prompt.includes("      1 + ZERO\n"), prompt);
    await pty.type("1");
    await pty.waitFor((out) => out.includes("all done"), "the answer");
    assert(/Replaced lines 2-2 of a\.txt[^\n]* \+1 -1/.test(pty.output), pty.output);
    assert(/a\.txt[^\n]* \+1 -0/.test(pty.output), pty.output);
    assertEquals(await Deno.readTextFile(join(sandbox.cwd, "a.txt")), "ZERO\nALPHA\nBETA\nGAMMA\n");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: two file changes in one turn are listed with their diffs",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(join(sandbox.cwd, "a.txt"), "alpha\nbeta\n");
    await using server = startFakeLlmServer([
      reply()
        .toolCall("edit_file", { path: "a.txt", old_string: "beta", new_string: "BETA" })
        .toolCall("write_file", { path: "b.txt", content: "bee\n" }),
      reply().text("both"),
    ]);
    await using pty = await editingRepl(sandbox, server.baseUrl);
    await pty.type("two\r");
    await pty.waitFor((out) => out.includes("[a] Approve all 2"), "the batch prompt");
    const prompt = lastPrompt(pty.output);
    assert(prompt.includes("     a.txt  +1 -1\n"), prompt);
    assert(prompt.includes("       2     - beta\n           2 + BETA\n"), prompt);
    assert(prompt.includes("     b.txt  new file, 1 line, 4 B\n       1 + bee\n"), prompt);
    await pty.type("a");
    await pty.waitFor((out) => out.includes("both"), "the answer");
    assertEquals(await Deno.readTextFile(join(sandbox.cwd, "b.txt")), "bee\n");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test("-p: a file change's tool line ends with +N -M", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(join(sandbox.cwd, "a.txt"), "alpha\nbeta\ngamma\n");
  await using server = startFakeLlmServer([
    reply().toolCall("edit_file", { path: "a.txt", old_string: "beta", new_string: "B\nC" }),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "-p",
    "edit",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
    "--allow-write=.",
    "--yes",
  ]);
  assertEquals(out.code, 0, out.stderr);
  assert(/✓ edit_file [^\n]*Edited a\.txt \(1 occurrence\) \+2 -1\n/.test(out.stderr), out.stderr);
});
