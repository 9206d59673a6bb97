import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import readFile from "../../plugins/read_file.ts";
import editFile from "../../plugins/edit_file.ts";
import replaceLines from "../../plugins/replace_lines.ts";
import insertLines from "../../plugins/insert_lines.ts";
import type { ToolDefinition } from "../../src/tools/define_tool.ts";
import { expectToolError, makeToolContext, runTool } from "../helpers/tool_context.ts";
import { hasCommand } from "../helpers/system_commands.ts";

/** Each tool that reads a file first, with arguments that would otherwise work on `path`. */
const READERS: [ToolDefinition, (path: string) => Record<string, unknown>][] = [
  [readFile, (path) => ({ path })],
  [editFile, (path) => ({ path, old_string: "caf", new_string: "CAF" })],
  [replaceLines, (path) => ({ path, line_start: 1, line_end: 1, new_content: "x" })],
  [insertLines, (path) => ({ path, line_start: 1, new_content: "x" })],
];

/** Makes a FIFO; false when mkfifo is missing (Windows). */
function mkfifo(path: string): void {
  assert(new Deno.Command("mkfifo", { args: [path] }).outputSync().success, "mkfifo failed");
}

const LATIN1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x6f, 0x6b, 0x0a]); // "café\nok\n"
const BOM = [0xef, 0xbb, 0xbf];

Deno.test({
  name: "file tools refuse a FIFO, directly or through a symlink, without opening it",
  ignore: !hasCommand("mkfifo"),
}, async () => {
  await using ctx = await makeToolContext();
  mkfifo(join(ctx.workspace, "pipe"));
  await Deno.symlink("pipe", join(ctx.workspace, "link"));
  for (const [tool, args] of READERS) {
    for (const path of ["pipe", "link"]) {
      // Opening the FIFO would block until a writer appears; the stat check must come first.
      const message = await expectToolError(tool, args(path), ctx, "validation_failed");
      assert(message.includes("FIFO") && message.includes("not a regular file"), message);
      assert(message.startsWith(`"${path}"`), message);
    }
  }
});

Deno.test("edit tools refuse a file that is not valid UTF-8 and leave it untouched", async () => {
  await using ctx = await makeToolContext();
  const file = join(ctx.workspace, "latin1.txt");
  await Deno.writeFile(file, LATIN1);
  for (const [tool, args] of READERS.slice(1)) {
    const message = await expectToolError(tool, args("latin1.txt"), ctx, "validation_failed");
    assert(message.includes("not valid UTF-8") && message.includes("write_file"), message);
  }
  assertEquals(await Deno.readFile(file), LATIN1);
});

Deno.test("read_file shows invalid UTF-8 as U+FFFD and says the file is not valid UTF-8", async () => {
  await using ctx = await makeToolContext();
  await Deno.writeFile(join(ctx.workspace, "latin1.txt"), LATIN1);
  const { output } = await runTool(readFile, { path: "latin1.txt" }, ctx);
  const [note = "", ...lines] = output.split("\n");
  assert(note.includes("not valid UTF-8") && note.includes("write_file"), note);
  assertEquals(lines, ["1: caf\ufffd", "2: ok"]);
  const later = await runTool(readFile, { path: "latin1.txt", offset: 2 }, ctx);
  assert(later.output.includes("not valid UTF-8"), "the note does not depend on the lines shown");
});

Deno.test("edit tools keep a UTF-8 byte order mark and read_file hides it", async () => {
  await using ctx = await makeToolContext();
  const file = join(ctx.workspace, "bom.txt");
  const write = (text: string) =>
    Deno.writeFile(file, new Uint8Array([...BOM, ...new TextEncoder().encode(text)]));
  const read = async () => {
    const bytes = await Deno.readFile(file);
    assertEquals([...bytes.subarray(0, 3)], BOM, "BOM kept");
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(3));
  };
  await write("café\r\nok\r\n");
  assertEquals((await runTool(readFile, { path: "bom.txt" }, ctx)).output, "1: café\n2: ok");

  await runTool(editFile, { path: "bom.txt", old_string: "ok", new_string: "fine" }, ctx);
  assertEquals(await read(), "café\r\nfine\r\n");
  await runTool(
    replaceLines,
    { path: "bom.txt", line_start: 1, line_end: 1, new_content: "a" },
    ctx,
  );
  assertEquals(await read(), "a\r\nfine\r\n");
  await runTool(insertLines, { path: "bom.txt", line_start: 1, new_content: "top" }, ctx);
  assertEquals(await read(), "top\r\na\r\nfine\r\n");

  // A second U+FEFF after the BOM is content, and survives too.
  await write("\ufeffx\n");
  await runTool(editFile, { path: "bom.txt", old_string: "x", new_string: "y" }, ctx);
  assertEquals(await read(), "\ufeffy\n");
});
