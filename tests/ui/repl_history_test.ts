import { deepStrictEqual as assertEquals, notDeepStrictEqual } from "node:assert/strict";
import { join } from "node:path";
import {
  appendHistory,
  HISTORY_LIMIT,
  historyFile,
  loadHistory,
} from "../../src/ui/repl_history.ts";
import { tempDir } from "../helpers/session_store.ts";

Deno.test("loadHistory() returns lines from earlier runs, most recent first, per cwd", async () => {
  await using dir = await tempDir();
  const env = { XDG_DATA_HOME: dir.path };
  appendHistory("/a", "first", { env });
  appendHistory("/a", "multi\nline", { env });
  appendHistory("/b", "other folder", { env });
  appendHistory("/a", "   ", { env });
  appendHistory("/a", "multi\nline", { env }); // repeat of the last line: skipped
  assertEquals(loadHistory("/a", { env }), ["multi\nline", "first"]);
  assertEquals(loadHistory("/b", { env }), ["other folder"]);
  assertEquals(loadHistory("/c", { env }), []);
  notDeepStrictEqual(historyFile("/a", { env }), historyFile("/b", { env }));
  assertEquals(
    historyFile("/a", { env }).startsWith(join(dir.path, "harness", "history")),
    true,
  );
});

Deno.test("appendHistory() keeps the newest 1000 lines", async () => {
  await using dir = await tempDir();
  for (let i = 0; i < HISTORY_LIMIT + 25; i++) appendHistory("/p", `line ${i}`, { dir: dir.path });
  const lines = loadHistory("/p", { dir: dir.path });
  assertEquals(lines.length, HISTORY_LIMIT);
  assertEquals(lines[0], `line ${HISTORY_LIMIT + 24}`);
  assertEquals(lines.at(-1), "line 25");
  const text = await Deno.readTextFile(historyFile("/p", { dir: dir.path }));
  assertEquals(text.trimEnd().split("\n").length, HISTORY_LIMIT);
});

Deno.test("loadHistory() skips a line cut off by a crash", async () => {
  await using dir = await tempDir();
  appendHistory("/p", "whole", { dir: dir.path });
  await Deno.writeTextFile(historyFile("/p", { dir: dir.path }), '"cut', { append: true });
  assertEquals(loadHistory("/p", { dir: dir.path }), ["whole"]);
  appendHistory("/p", "after", { dir: dir.path });
  assertEquals(loadHistory("/p", { dir: dir.path }), ["after", "whole"]);
});
