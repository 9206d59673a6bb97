// Names are sorted with compareNames (src/platform/name_order.ts), never localeCompare: its
// first call loads ICU's collator (about 8 ms), which every -p run paid when the user had two
// skills or agents. Only code no start-up reaches may still call it.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { compareNames } from "../../src/platform/name_order.ts";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

// Reached only by a command the user types: /stats, and the approval of an MCP server's
// launcher profile (after the prompt, with its own question).
const OFF_START = new Set(["sessions/usage_stats.ts", "mcp/profile_approval.ts"]);

function sourceFiles(dir: string, prefix = ""): string[] {
  return [...Deno.readDirSync(dir)].flatMap((entry) =>
    entry.isDirectory
      ? sourceFiles(`${dir}/${entry.name}`, `${prefix}${entry.name}/`)
      : entry.name.endsWith(".ts")
      ? [`${prefix}${entry.name}`]
      : []
  );
}

Deno.test("no module a start-up reaches sorts with localeCompare", () => {
  const callers = sourceFiles(SRC).filter((file) =>
    !OFF_START.has(file) && /\.localeCompare\(/.test(Deno.readTextFileSync(`${SRC}${file}`))
  );
  assertEquals(callers, []);
});

Deno.test("compareNames() orders ignoring case first, then by case, as sort needs", () => {
  assertEquals(["b", "B", "a", "A-2", "A"].sort(compareNames), ["A", "a", "A-2", "B", "b"]);
  assertEquals(compareNames("x", "x"), 0);
});
