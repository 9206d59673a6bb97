// diffStatOfStates() over real blobs: lines added and removed per path between the states a
// turn's record holds (what a subagent's footer reports), binary files without counts.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { ShadowStore } from "../../src/checkpoints/shadow_store.ts";
import { diffStatOfStates } from "../../src/checkpoints/diff_stat.ts";

Deno.test("diffStatOfStates() counts lines added and removed per path", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_diffstat_" }));
  try {
    const workspace = join(root, "work");
    Deno.mkdirSync(workspace);
    const write = (path: string, text: string) =>
      Deno.writeTextFileSync(join(workspace, path), text);
    write("a.txt", "one\ntwo\n");
    write("gone.txt", "x\n");
    write("bin.dat", "a");
    const store = await ShadowStore.open({
      git: "git",
      workspace,
      gitDir: join(root, "git"),
      owner: "s",
      maxFileBytes: 1 << 20,
      access: { mayRead: () => true, mayWrite: () => true },
    });
    const paths = ["a.txt", "bin.dat", "gone.txt", "new file.txt"];
    const before = await store.read(paths);
    write("a.txt", "one\n2\n3\n");
    write("new file.txt", "n\n");
    write("bin.dat", "\u0000\u0001");
    Deno.removeSync(join(workspace, "gone.txt"));
    const after = await store.read(paths);
    const states = Object.fromEntries(
      paths.map((path) => [path, [before.get(path)!, after.get(path)!] as const]),
    );
    assertEquals(await diffStatOfStates(store, states), [
      { path: "a.txt", added: 2, removed: 1, binary: false },
      { path: "bin.dat", added: 0, removed: 0, binary: true },
      { path: "gone.txt", added: 0, removed: 1, binary: false },
      { path: "new file.txt", added: 1, removed: 0, binary: false },
    ]);
    assertEquals(await diffStatOfStates(store, {}), []);
    await store.close();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
