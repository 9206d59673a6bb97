// The generated repository the search tests share (search_differential_test.ts,
// rg_grep_test.ts, search_service_test.ts): deterministic, so a failure reproduces.

import { ok as assert } from "node:assert/strict";
import { dirname, join } from "node:path";

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = [
  "needle",
  "Needle",
  "NEEDLE",
  "return",
  "Return",
  "foo",
  "bar",
  "FooBar",
  "a.b",
  "a_b",
  "(x)",
  "_id",
  "déjà",
  "日本",
  "const",
  "x",
  "deprecated",
  "since",
  "Deprecated",
];

function text(next: () => number, lines: number, crlf: boolean): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const words: string[] = [];
    const count = Math.floor(next() * 12);
    for (let j = 0; j < count; j++) words.push(WORDS[Math.floor(next() * WORDS.length)]!);
    out.push(words.join(next() < 0.2 ? "" : " "));
  }
  return out.join(crlf ? "\r\n" : "\n") + "\n";
}

/**
 * Writes the fixture repository into `root`: nested .gitignore files (negations, folder-only
 * and anchored rules), hidden files, binaries (NULs early and late), CRLF lines, non-ASCII
 * text, a file across the reader's 64 KiB first chunk, and `count` generated text files.
 */
export async function buildSearchTree(root: string, count = 120): Promise<void> {
  const next = random(20);
  const files: Record<string, string | Uint8Array> = {
    ".gitignore": "*.log\nbuild/\n/top_only.txt\nsrc/gen/\n!keep.log\n",
    "top_only.txt": "needle\n",
    "keep.log": "needle in a kept log\n",
    "drop.log": "needle in a dropped log\n",
    "build/out.js": "needle\n",
    ".hidden/secret.ts": "needle\n",
    ".env.ts": "needle\n",
    "src/gen/made.ts": "needle\n",
    "src/nested/.gitignore": "*.tmp\nlocal/\n!important.tmp\n",
    "src/nested/x.tmp": "needle\n",
    "src/nested/important.tmp": "needle tmp\n",
    "src/nested/local/a.ts": "needle\n",
    "src/nested/deeper/top_only.txt": "needle (not anchored here)\n",
    "bin/blob.bin": new Uint8Array([110, 101, 101, 100, 108, 101, 0, 1, 2, 3]),
    // A NUL past 8 KiB but in the first 64 KiB: binary, as for ripgrep. (A NUL past 64 KiB
    // ends the text before its line; ripgrep 13 agrees when it searches on several threads,
    // not always when sorted, so the shared tree has none: see grep_files_test.ts.)
    "bin/late_nul.txt": `${"a\n".repeat(4100)}needle\n\0`,
    // A needle across the 64 KiB first chunk, and one far past it.
    "big/chunked.txt": `${"z".repeat(65_530)}needle${"\n".repeat(3)}${
      "q\n".repeat(40_000)
    }needle\n`,
  };
  for (let i = 0; i < count; i++) {
    const folder = ["src", "src/lib", "docs", "pkg/a", "pkg/b", "src/nested/deeper"][i % 6]!;
    const ext = ["ts", "md", "js", "txt"][i % 4]!;
    files[`${folder}/f${i}.${ext}`] = text(next, 5 + Math.floor(next() * 60), i % 7 === 0);
  }
  for (const [path, content] of Object.entries(files)) {
    const abs = join(root, path);
    await Deno.mkdir(dirname(abs), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(abs, content);
    else await Deno.writeFile(abs, content);
  }
  const git = new Deno.Command("git", { args: ["init", "-q", "."], cwd: root }).outputSync();
  assert(git.success, "git init failed");
}
