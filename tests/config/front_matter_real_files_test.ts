// The corpus of real files (tests/fixtures/real_files/SOURCES): every row's file is there and
// every file has its row, each kind has five or more, every license is MIT or Apache-2.0, and
// readFrontMatter() reads every Markdown file of it to a name (or its file's) and a description.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { relative } from "node:path";
import { fieldText, readFrontMatter } from "../../src/config/front_matter.ts";
import { REAL_FILES, realFile, realFiles } from "../helpers/real_files.ts";

Deno.test("real files: SOURCES lists every file once, five or more of each kind, MIT or Apache-2.0", () => {
  const rows = realFiles();
  const files: string[] = [];
  const visit = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) visit(path);
      else if (entry.name !== "SOURCES") files.push(relative(REAL_FILES, path));
    }
  };
  visit(REAL_FILES.replace(/\/$/, ""));
  assertEquals(rows.map((row) => row.fixture).sort(), files.sort());
  assert(rows.length >= 60, `${rows.length} files`);
  for (const kind of ["mcp", "agents", "skills", "places"]) {
    const count = rows.filter((row) => row.kind === kind).length;
    assert(count >= 5, `${kind}: ${count}`);
  }
  for (const row of rows) {
    assert(/^(MIT|Apache-2\.0)\b/.test(row.license), `${row.fixture}: ${row.license}`);
    assert(/^[0-9a-f]{40}$/.test(row.commit), `${row.fixture}: ${row.commit}`);
  }
});

Deno.test("readFrontMatter() reads every real Markdown file to a description", () => {
  const markdown = realFiles().filter((row) => row.fixture.endsWith(".md"));
  assert(markdown.length >= 30);
  for (const row of markdown) {
    const front = readFrontMatter(Deno.readTextFileSync(realFile(row.fixture)));
    const description = fieldText(front, "description") ??
      front.body.split("\n").find((line) => line.trim() !== "");
    assert(description, `${row.fixture}: no description`);
    if (front.reading !== "none") assert(front.body.length > 0, `${row.fixture}: empty body`);
  }
});
