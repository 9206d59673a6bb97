// Incremental indexing in the real worker: first use, edits, renames, deletions, .gitignore
// changes, the read grant, and a kill in the middle of a run.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { GraphStore } from "../../src/code_index/graph_store.ts";
import { indexWorkspace } from "../../src/code_index/index_workspace.ts";
import { type Grants } from "../../src/sandbox/grants/grants.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";

async function tempWorkspace(): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_index_" }));
  return {
    dir,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

function grantsFor(flags: string[], cwd: string): Grants {
  const parsed = parseGrantFlags(flags, { cwd });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value.grants;
}

function names(store: GraphStore): string[] {
  return store.allDefinitions().map((d) => `${d.path}:${d.name}`);
}

Deno.test("indexWorkspace() indexes once, then only what changed (edit, rename, delete)", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(`${ws.dir}/a.ts`, "export function alpha() {}\n");
  await Deno.writeTextFile(`${ws.dir}/b.py`, "def beta():\n    return alpha()\n");
  const store = GraphStore.open(":memory:");
  const grants = grantsFor(["--allow-read=."], ws.dir);
  const first = await indexWorkspace({ workspace: ws.dir, grants, store });
  assertEquals([first.files, first.parsed, first.removed], [2, 2, 0]);
  assertEquals(names(store), ["a.ts:alpha", "b.py:beta"]);

  const warm = await indexWorkspace({ workspace: ws.dir, grants, store });
  assertEquals([warm.files, warm.parsed], [2, 0]);

  await Deno.writeTextFile(`${ws.dir}/a.ts`, "export function alphaTwo() {}\n");
  const edited = await indexWorkspace({ workspace: ws.dir, grants, store });
  assertEquals(edited.parsed, 1);
  assertEquals(names(store), ["a.ts:alphaTwo", "b.py:beta"]);

  await Deno.rename(`${ws.dir}/b.py`, `${ws.dir}/c.py`);
  const renamed = await indexWorkspace({ workspace: ws.dir, grants, store });
  assertEquals([renamed.parsed, renamed.removed], [1, 1]);
  assertEquals(names(store), ["a.ts:alphaTwo", "c.py:beta"]);

  await Deno.remove(`${ws.dir}/a.ts`);
  const deleted = await indexWorkspace({ workspace: ws.dir, grants, store });
  assertEquals(deleted.removed, 1);
  assertEquals(names(store), ["c.py:beta"]);
  assertEquals(store.referencesNamed("alpha").length, 1);
  store.close();
});

Deno.test("indexWorkspace() touches a file whose mtime changed but content did not", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(`${ws.dir}/a.ts`, "export function alpha() {}\n");
  const store = GraphStore.open(":memory:");
  const grants = grantsFor(["--allow-read=."], ws.dir);
  await indexWorkspace({ workspace: ws.dir, grants, store });
  await Deno.utime(`${ws.dir}/a.ts`, new Date(), new Date(Date.now() + 5000));
  const touched = await indexWorkspace({ workspace: ws.dir, grants, store });
  assertEquals(touched.parsed, 0);
  const again = await indexWorkspace({ workspace: ws.dir, grants, store });
  assertEquals(again.parsed, 0);
  store.close();
});

Deno.test("indexWorkspace() follows .gitignore changes and skips node_modules", async () => {
  await using ws = await tempWorkspace();
  await Deno.mkdir(`${ws.dir}/gen`);
  await Deno.mkdir(`${ws.dir}/node_modules/pkg`, { recursive: true });
  await Deno.writeTextFile(`${ws.dir}/gen/out.ts`, "export const generated = 1;\n");
  await Deno.writeTextFile(`${ws.dir}/node_modules/pkg/i.js`, "function dep() {}\n");
  await Deno.writeTextFile(`${ws.dir}/main.ts`, "export function main() {}\n");
  const store = GraphStore.open(":memory:");
  const grants = grantsFor(["--allow-read=."], ws.dir);
  await indexWorkspace({ workspace: ws.dir, grants, store });
  assertEquals(names(store), ["gen/out.ts:generated", "main.ts:main"]);
  await Deno.writeTextFile(`${ws.dir}/.gitignore`, "gen/\n");
  const ignored = await indexWorkspace({ workspace: ws.dir, grants, store });
  assertEquals(ignored.removed, 1);
  assertEquals(names(store), ["main.ts:main"]);
  store.close();
});

Deno.test("indexWorkspace() reads nothing the read grant leaves out", async () => {
  await using ws = await tempWorkspace();
  await Deno.mkdir(`${ws.dir}/secret`);
  await Deno.writeTextFile(`${ws.dir}/secret/key.ts`, "export const privateKey = 'x';\n");
  await Deno.writeTextFile(`${ws.dir}/ok.ts`, "export function visible() {}\n");
  await Deno.writeTextFile(`${ws.dir}/env.ts`, "export const token = 'x';\n");
  const store = GraphStore.open(":memory:");
  const grants = grantsFor(["--allow-read=.", "--deny-read=secret,env.ts"], ws.dir);
  const summary = await indexWorkspace({ workspace: ws.dir, grants, store });
  assertEquals(names(store), ["ok.ts:visible"]);
  assert(summary.skipped >= 1);
  store.close();
});

Deno.test("indexWorkspace() refuses a workspace outside the read grant", async () => {
  await using ws = await tempWorkspace();
  const store = GraphStore.open(":memory:");
  const grants = grantsFor([], ws.dir);
  let message = "";
  try {
    await indexWorkspace({ workspace: ws.dir, grants, store });
  } catch (error) {
    message = (error as Error).message;
  }
  assert(message.includes("--allow-read=."), message);
  store.close();
});

Deno.test("indexWorkspace() refreshes only the named files", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(`${ws.dir}/a.ts`, "export function alpha() {}\n");
  await Deno.writeTextFile(`${ws.dir}/b.ts`, "export function beta() {}\n");
  const store = GraphStore.open(":memory:");
  const grants = grantsFor(["--allow-read=."], ws.dir);
  await indexWorkspace({ workspace: ws.dir, grants, store });
  await Deno.writeTextFile(`${ws.dir}/a.ts`, "export function gamma() {}\n");
  await Deno.writeTextFile(`${ws.dir}/b.ts`, "export function delta() {}\n");
  const partial = await indexWorkspace({ workspace: ws.dir, grants, store, only: ["a.ts"] });
  assertEquals(partial.parsed, 1);
  assertEquals(names(store), ["a.ts:gamma", "b.ts:beta"]);
  store.close();
});

const KILL_SCRIPT = fileURLToPath(new URL("../fixtures/index_then_hang.ts", import.meta.url));

Deno.test("a kill during indexing leaves a usable index that the next run completes", async () => {
  await using ws = await tempWorkspace();
  for (let i = 0; i < 400; i++) {
    await Deno.writeTextFile(
      `${ws.dir}/m${i}.ts`,
      `export function f${i}() { return g${i}(); }\nexport function g${i}() { return 1; }\n`,
    );
  }
  const db = `${ws.dir}/../${ws.dir.split("/").at(-1)}.db`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", KILL_SCRIPT, ws.dir, db],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // Kill once some files are in: the script prints a line per stored file.
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("stored 50\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  child.kill("SIGKILL");
  await child.status;
  await reader.cancel().catch(() => {});
  const store = GraphStore.open(db);
  try {
    const partial = store.counts();
    assert(partial.files >= 50 && partial.files < 400, JSON.stringify(partial));
    assertEquals(partial.definitions, partial.files * 2);
    const grants = grantsFor(["--allow-read=."], ws.dir);
    const rest = await indexWorkspace({ workspace: ws.dir, grants, store });
    assertEquals(rest.parsed, 400 - partial.files);
    assertEquals(store.counts().definitions, 800);
  } finally {
    store.close();
    for (const suffix of ["", "-wal", "-shm"]) await Deno.remove(db + suffix).catch(() => {});
  }
});
