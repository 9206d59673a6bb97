// The session's index updates: one indexing worker serves every update (tree-sitter loaded
// once), a file no grammar parses never reaches a worker, and a second update of the same
// file joins the first instead of running again.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { GraphStore } from "../../src/code_index/graph_store.ts";
import { IndexUpdates } from "../../src/code_index/index_updates.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import type { Grants } from "../../src/sandbox/grants/grants.ts";

async function workspace(): Promise<{ dir: string; grants: Grants } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_updates_" }));
  const parsed = parseGrantFlags(["--allow-read=."], { cwd: dir });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return {
    dir,
    grants: parsed.value.grants,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

/** The updates of a workspace, over an in-memory store. */
function updatesOf(ws: { dir: string; grants: Grants }) {
  const store = GraphStore.open(":memory:");
  const updates = new IndexUpdates({
    workspace: ws.dir,
    grants: ws.grants,
    store: () => Promise.resolve(store),
  });
  return { store, updates };
}

function names(store: GraphStore): string[] {
  return store.allDefinitions().map((d) => `${d.path}:${d.name}`);
}

Deno.test("IndexUpdates keeps one worker for every update of the session", async () => {
  await using ws = await workspace();
  await Deno.writeTextFile(`${ws.dir}/a.ts`, "export function alpha() {}\n");
  await Deno.writeTextFile(`${ws.dir}/b.py`, "def beta():\n    return 1\n");
  const { store, updates } = updatesOf(ws);
  try {
    await updates.all();
    assertEquals(names(store), ["a.ts:alpha", "b.py:beta"]);
    const afterFirst = updates.counts.started;
    for (let i = 0; i < 20; i++) {
      await Deno.writeTextFile(`${ws.dir}/a.ts`, `export function alpha${i}() {}\n`);
      await updates.file("a.ts");
    }
    await updates.all();
    assertEquals(names(store), ["a.ts:alpha19", "b.py:beta"]);
    // Twenty-one more runs, no new worker: tree-sitter and the grammars were loaded once.
    assertEquals(updates.counts.started, afterFirst);
    assert(updates.counts.jobs >= 22, JSON.stringify(updates.counts));
  } finally {
    updates.close();
    store.close();
  }
});

Deno.test("IndexUpdates.file() never starts a worker for a file no grammar parses", async () => {
  await using ws = await workspace();
  await Deno.writeTextFile(`${ws.dir}/README.md`, "# Notes\n".repeat(100));
  await Deno.writeTextFile(`${ws.dir}/notes.txt`, "plain text\n");
  const { store, updates } = updatesOf(ws);
  try {
    for (let i = 0; i < 5; i++) {
      await updates.file("README.md");
      await updates.file("notes.txt");
    }
    assertEquals(updates.counts, { started: 0, jobs: 0 });
  } finally {
    updates.close();
    store.close();
  }
});

Deno.test("IndexUpdates.file() joins an update of the same file instead of running again", async () => {
  await using ws = await workspace();
  await Deno.writeTextFile(`${ws.dir}/a.ts`, "export function alpha() {}\n");
  const { store, updates } = updatesOf(ws);
  try {
    // The refresh after a read_file, then the curator's outline of the same file.
    const afterCall = updates.file("a.ts");
    assert(updates.file("a.ts") === afterCall, "a waiting update is joined");
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert(updates.file("a.ts", { joinRunning: true }) === afterCall, "a running one too");
    await afterCall;
    assertEquals(updates.counts.jobs, 1);
    assertEquals(names(store), ["a.ts:alpha"]);
    // Once it is done, a later change gets an update of its own.
    await Deno.writeTextFile(`${ws.dir}/a.ts`, "export function omega() {}\n");
    await updates.file("a.ts");
    assertEquals(updates.counts.jobs, 2);
    assertEquals(names(store), ["a.ts:omega"]);
  } finally {
    updates.close();
    store.close();
  }
});

Deno.test("IndexUpdates re-reads a file rewritten within its modification time's clock tick", async () => {
  await using ws = await workspace();
  const path = `${ws.dir}/a.ts`;
  await Deno.writeTextFile(path, "export function alpha1() {}\n");
  const { store, updates } = updatesOf(ws);
  try {
    await updates.file("a.ts");
    assertEquals(names(store), ["a.ts:alpha1"]);
    // A second write of the same size in the same tick keeps the file's size and time: the
    // time is put back to what the index saw, as a coarse file-system clock would leave it.
    const seen = (await Deno.stat(path)).mtime!;
    await Deno.writeTextFile(path, "export function alpha2() {}\n");
    await Deno.utime(path, seen, seen);
    assertEquals((await Deno.stat(path)).mtime!.getTime(), seen.getTime());
    await updates.file("a.ts");
    assertEquals(names(store), ["a.ts:alpha2"]);
    await updates.all();
    assertEquals(names(store), ["a.ts:alpha2"]);
  } finally {
    updates.close();
    store.close();
  }
});
