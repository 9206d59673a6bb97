// The footer under a subagent's report (issue 41): what harness recorded, not what the child
// claims: the diffstat from the checkpoints (here a real one) and the commands it ran, bounded.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { formatTaskFooter } from "../../src/tools/builtin/task_footer.ts";
import { ShadowStore } from "../../src/checkpoints/shadow_store.ts";
import { diffStatOfStates } from "../../src/checkpoints/diff_stat.ts";
import { tempDir } from "../helpers/temp_dir.ts";

Deno.test("formatTaskFooter() states a real checkpoint diffstat and the commands run", async () => {
  await using dir = await tempDir();
  const workspace = join(dir.path, "ws");
  await Deno.mkdir(join(workspace, "src"), { recursive: true });
  await Deno.writeTextFile(join(workspace, "src", "a.ts"), "one\n");
  const store = await ShadowStore.open({
    git: "git",
    workspace,
    gitDir: join(dir.path, "shadow"),
    owner: "child-1",
    maxFileBytes: 1 << 20,
    access: { mayRead: () => true, mayWrite: () => true },
  });
  // The states a turn's record holds for the files its calls changed, before and after.
  const paths = ["src/a.ts", "notes.md"];
  const before = await store.read(paths);
  await Deno.writeTextFile(join(workspace, "src", "a.ts"), "one\ntwo\nthree\n");
  await Deno.writeTextFile(join(workspace, "notes.md"), "n\n");
  const after = await store.read(paths);
  const states = Object.fromEntries(
    paths.map((path) => [path, [before.get(path)!, after.get(path)!] as const]),
  );
  const text = formatTaskFooter({
    changed: await diffStatOfStates(store, states),
    commands: ["deno test\n  --filter x", "git diff"],
  });
  await store.close();
  assertEquals(text.split("\n"), [
    "[harness: what this subagent did, as harness recorded it]",
    "files changed: 2 files, +3 -0",
    "  notes.md +1 -0",
    "  src/a.ts +2 -0",
    "commands run: 2",
    "  $ deno test --filter x",
    "  $ git diff",
  ]);
});

Deno.test("formatTaskFooter() bounds long lists and says when changes are unknown or shared", () => {
  const changed = Array.from({ length: 25 }, (_, i) => ({
    path: `f${i}`,
    added: 1,
    removed: 0,
    binary: i === 0,
  }));
  const text = formatTaskFooter({ changed, commands: ["x".repeat(300)], concurrent: 2 });
  assert(text.includes("25 files, +25 -0 (2 other subagents ran at the same time)"), text);
  assert(text.includes("  f0 (binary)") && text.includes("  and 5 more"), text);
  assert(text.includes(`  $ ${"x".repeat(117)}...`), text);
  const unknown = formatTaskFooter({
    changed: [],
    commands: [],
    changesUnknown: "checkpoints are off",
  });
  assert(unknown.includes("files changed: unknown (checkpoints are off)"), unknown);
  assert(unknown.includes("commands run: none"), unknown);
});
