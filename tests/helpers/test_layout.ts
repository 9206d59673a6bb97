// Where a test belongs: tests mirror the source tree, so tests/<room>/<file>_test.ts (or
// <file>_<aspect>_test.ts) names a file or a folder of that room (src/<room>/**; a room in a
// wing such as src/sandbox/workers/ has tests/sandbox/workers/; plugins/ for the room
// builtin_tools; src/messages.ts and errors.ts at the top). Shared helpers live in
// tests/helpers/, data in tests/fixtures/, tests of the whole program in tests/e2e/, of the
// release files in tests/release/ and of the docs pages in tests/docs/.

import { roomOf, WINGS } from "./module_graph.ts";

/** Folders of tests/ that mirror no room, and why. */
export const TEST_FOLDERS_OUTSIDE_ROOMS: Readonly<Record<string, string>> = {
  helpers: "code shared by tests",
  fixtures: "files tests read or run",
  e2e: "the whole program, run as the binary runs (main.ts)",
  release: "the release files: deno.json's tasks, the workflows, install.sh",
  docs: "the docs pages (README.md, docs/*.md), held to the code",
};

/** Project-wide tests at the top of tests/, beside the neutral types' tests. */
const TOP_LEVEL_TESTS = new Set(["tests/architecture_test.ts"]);

/**
 * The test files that do not mirror a source file, each with why.
 *
 * @param tests Paths under tests/ (forward slashes).
 * @param sources The project's source files (src/**, plugins/*.ts).
 * @returns One line per misplaced file, sorted.
 *
 * @example
 * ```ts
 * import { misplacedTests } from "./test_layout.ts";
 * const sources = ["src/tools/tool_call.ts", "plugins/ls.ts"];
 * const tests = ["tests/tools/tool_call_test.ts", "tests/builtin_tools/ls_paths_test.ts"];
 * if (misplacedTests(tests, sources).length !== 0) throw new Error();
 * if (misplacedTests(["tests/tools/ls_test.ts"], sources).length !== 1) throw new Error();
 * ```
 */
export function misplacedTests(tests: readonly string[], sources: readonly string[]): string[] {
  const byRoom = new Map<string, Set<string>>();
  for (const file of sources) {
    const room = roomOf(file);
    const names = byRoom.get(room) ?? new Set<string>();
    byRoom.set(room, names);
    const parts = file.split("/");
    names.add(parts.at(-1)!.replace(/\.ts$/, ""));
    // A folder inside the room (src/providers/server_probe/) names its files' test too.
    const depth = room === "builtin_tools" ? 1 : 1 + room.split("/").length;
    for (const folder of parts.slice(depth, -1)) names.add(folder);
  }
  const found: string[] = [];
  for (const test of tests) {
    const parts = test.split("/");
    if (parts[0] !== "tests") continue;
    if (parts.length > 2 && parts[1]! in TEST_FOLDERS_OUTSIDE_ROOMS) continue;
    if (TOP_LEVEL_TESTS.has(test)) continue;
    const name = parts.at(-1)!;
    if (!name.endsWith("_test.ts")) {
      found.push(`${test}: not a test (name it *_test.ts, or move it to tests/helpers/)`);
      continue;
    }
    const wing = WINGS.has(parts[1]!) && parts.length > 3;
    const room = parts.length === 2 ? "neutral" : wing ? `${parts[1]}/${parts[2]}` : parts[1]!;
    const names = byRoom.get(room);
    if (names === undefined) {
      found.push(`${test}: tests/${room}/ mirrors no room of the source tree`);
      continue;
    }
    const stem = name.slice(0, -"_test.ts".length);
    if (![...names].some((file) => stem === file || stem.startsWith(`${file}_`))) {
      found.push(`${test}: names no file of ${room === "neutral" ? "src/" : `room ${room}`}`);
    }
  }
  return found.sort();
}
