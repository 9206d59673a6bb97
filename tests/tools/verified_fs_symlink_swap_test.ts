// Attack: a folder of the workspace is swapped for a symbolic link to a folder outside it
// between the tool's path check (ctx.resolve) and its use. The seam is the injected context:
// its resolve runs the real check, then makes the swap, as a concurrent process could.
// Every file tool must notice and neither read, list nor write outside the workspace.

import { join } from "node:path";
import { deepStrictEqual as assertEquals, ok as assert, throws } from "node:assert/strict";
import type { ToolContext, ToolDefinition } from "../../src/tools/define_tool.ts";
import { ToolError } from "../../src/tools/define_tool.ts";
import { walkTree } from "../../src/tools/search/walk_tree.ts";
import { FileReader } from "../../src/tools/search/file_reader.ts";
import readFile from "../../plugins/read_file.ts";
import writeFile from "../../plugins/write_file.ts";
import editFile from "../../plugins/edit_file.ts";
import insertLines from "../../plugins/insert_lines.ts";
import replaceLines from "../../plugins/replace_lines.ts";
import ls from "../../plugins/ls.ts";
import getFileTree from "../../plugins/get_file_tree.ts";
import glob from "../../plugins/glob.ts";
import { makeToolContext, runTool, type TempToolContext } from "../helpers/tool_context.ts";

const SECRET = "inside: SECRET outside the workspace\n";

/** A workspace with `dir/file.txt` and, outside it, `target/file.txt` and `target/secret_name.txt`. */
async function swapWorkspace(): Promise<TempToolContext> {
  const ctx = await makeToolContext({ "dir/file.txt": "inside\n" });
  await Deno.mkdir(join(ctx.outside, "target"));
  await Deno.writeTextFile(join(ctx.outside, "target", "file.txt"), SECRET);
  await Deno.writeTextFile(join(ctx.outside, "target", "secret_name.txt"), SECRET);
  return ctx;
}

/** Replaces `dir` by a symbolic link to the outside folder: what a racing process does. */
function swapDirForLink(ctx: TempToolContext): void {
  Deno.renameSync(join(ctx.workspace, "dir"), join(ctx.workspace, "dir_aside"));
  Deno.symlinkSync(join(ctx.outside, "target"), join(ctx.workspace, "dir"));
}

/** The context with a resolve that swaps `dir` right after its (real) check, once. */
function racing(ctx: TempToolContext): ToolContext {
  let swapped = false;
  return {
    ...ctx,
    resolve(path: string) {
      const abs = ctx.resolve(path);
      if (!swapped) {
        swapped = true;
        swapDirForLink(ctx);
      }
      return abs;
    },
  };
}

/** Runs the tool and returns its output, or the ToolError's message. */
async function outcome(
  tool: ToolDefinition,
  args: unknown,
  ctx: ToolContext,
): Promise<{ ok: boolean; text: string }> {
  try {
    return { ok: true, text: (await runTool(tool, args, ctx)).output };
  } catch (error) {
    if (error instanceof ToolError || error instanceof Deno.errors.NotCapable) {
      return { ok: false, text: error.message };
    }
    throw error;
  }
}

function outsideNames(ctx: TempToolContext): string[] {
  return [...Deno.readDirSync(join(ctx.outside, "target"))].map((e) => e.name).sort();
}

Deno.test("read_file does not read through a folder swapped for a link after its check", async () => {
  await using ctx = await swapWorkspace();
  const result = await outcome(readFile as ToolDefinition, { path: "dir/file.txt" }, racing(ctx));
  assert(!result.text.includes("SECRET"), result.text);
  assert(!result.ok, result.text);
  assert(result.text.includes("symbolic link"), result.text);
});

for (
  const [name, tool, args] of [
    ["write_file", writeFile, { path: "dir/file.txt", content: "pwned\n" }],
    ["write_file (new file)", writeFile, { path: "dir/new.txt", content: "pwned\n" }],
    ["edit_file", editFile, { path: "dir/file.txt", old_string: "inside", new_string: "pwned" }],
    ["insert_lines", insertLines, { path: "dir/file.txt", line_start: 1, new_content: "pwned" }],
    ["replace_lines", replaceLines, {
      path: "dir/file.txt",
      line_start: 1,
      line_end: 1,
      new_content: "pwned",
    }],
  ] as const
) {
  Deno.test(`${name} does not write through a folder swapped for a link after its check`, async () => {
    await using ctx = await swapWorkspace();
    const result = await outcome(tool as unknown as ToolDefinition, args, racing(ctx));
    assert(!result.ok, result.text);
    assertEquals(outsideNames(ctx), ["file.txt", "secret_name.txt"]);
    assertEquals(await Deno.readTextFile(join(ctx.outside, "target", "file.txt")), SECRET);
  });
}

for (
  const [name, tool, args] of [
    ["ls", ls, { path: "dir" }],
    ["get_file_tree", getFileTree, { path: "dir" }],
    ["glob", glob, { pattern: "*.txt", path: "dir" }],
  ] as const
) {
  Deno.test(`${name} does not list a folder swapped for a link after its check`, async () => {
    await using ctx = await swapWorkspace();
    const result = await outcome(tool as unknown as ToolDefinition, args, racing(ctx));
    assert(!result.text.includes("secret_name"), result.text);
    assert(!result.ok, result.text);
  });
}

Deno.test("walkTree() does not descend into a folder swapped for a link after it was listed", async () => {
  await using ctx = await swapWorkspace();
  const seen: string[] = [];
  let error: unknown;
  try {
    walkTree(ctx.workspace, "", {
      includeHidden: false,
      respectGitignore: false,
      // The walk has seen `dir` as a folder; swap it before the walk enters it.
      enterDir(path) {
        if (path === "dir/") swapDirForLink(ctx);
        return true;
      },
      visit(entry) {
        seen.push(entry.path);
      },
    });
  } catch (caught) {
    error = caught;
  }
  assert(!seen.some((path) => path.includes("secret_name")), seen.join());
  assert(error instanceof ToolError && error.message.includes("symbolic link"), String(error));
});

Deno.test("FileReader.confirm() refuses a file read through a folder swapped for a link", async () => {
  await using ctx = await swapWorkspace();
  const reader = new FileReader();
  const abs = join(ctx.workspace, "dir", "file.txt"); // what the walk saw as a real path
  swapDirForLink(ctx); // grep_search's walk listed `dir`, then a process swapped it
  try {
    const bytes = reader.read(abs);
    assert(new TextDecoder().decode(bytes!).includes("SECRET")); // the cheap read went outside
    throws(() => reader.confirm(abs, "dir/file.txt"), /symbolic link/);
  } finally {
    reader.release();
  }
});

Deno.test("FileReader.confirm() refuses a file read by readText (grep's path) through a folder swapped for a link", async () => {
  await using ctx = await swapWorkspace();
  const reader = new FileReader();
  const abs = join(ctx.workspace, "dir", "file.txt");
  swapDirForLink(ctx);
  try {
    const bytes = reader.readText(abs);
    assert(bytes instanceof Uint8Array && new TextDecoder().decode(bytes).includes("SECRET"));
    throws(() => reader.confirm(abs, "dir/file.txt"), /symbolic link/);
  } finally {
    reader.release();
  }
});

Deno.test("FileReader.confirm() refuses a file read through a swapped folder even once the folder is swapped back", async () => {
  // The racing process swaps `dir` for a link during the read and restores it before the
  // check: the path is real again, so only the open descriptor's device and inode tell.
  await using ctx = await swapWorkspace();
  const reader = new FileReader();
  const abs = join(ctx.workspace, "dir", "file.txt");
  swapDirForLink(ctx);
  try {
    const bytes = reader.readText(abs);
    assert(bytes instanceof Uint8Array && new TextDecoder().decode(bytes).includes("SECRET"));
    Deno.removeSync(join(ctx.workspace, "dir"));
    Deno.renameSync(join(ctx.workspace, "dir_aside"), join(ctx.workspace, "dir"));
    throws(() => reader.confirm(abs, "dir/file.txt"), /symbolic link/);
    // The same path, read and confirmed now, is the workspace's own file.
    assertEquals(new TextDecoder().decode(reader.read(abs)!), "inside\n");
    reader.confirm(abs, "dir/file.txt");
  } finally {
    reader.release();
  }
});
