// Files in the write grant with other hard links are named at start (a command would write
// them in place under every name); git's own folder is not walked, and the walk keeps a budget.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { findLinkedFiles, linkedFilesWarning } from "../../../src/sandbox/grants/hard_links.ts";

Deno.test("findLinkedFiles() finds linked files below the roots, skips .git, and stops at its budget", async () => {
  const store = await Deno.realPath(await Deno.makeTempDir());
  const w = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(join(w, "node_modules", "pkg"), { recursive: true });
    await Deno.mkdir(join(w, ".git", "objects"), { recursive: true });
    await Deno.writeTextFile(join(store, "index.js"), "x");
    await Deno.link(join(store, "index.js"), join(w, "node_modules", "pkg", "index.js"));
    await Deno.writeTextFile(join(w, ".git", "objects", "a"), "x");
    await Deno.link(join(w, ".git", "objects", "a"), join(w, ".git", "objects", "b"));
    await Deno.writeTextFile(join(w, "plain.txt"), "x");
    const found = await findLinkedFiles([w]);
    assertEquals(found, {
      files: [join(w, "node_modules", "pkg", "index.js")],
      count: 1,
      complete: true,
    });
    const warning = linkedFilesWarning(found, w);
    assert(warning?.startsWith("1 file in the write grant has other hard links"), warning);
    assert(warning?.includes("node_modules/pkg/index.js"), warning);
    assertEquals((await findLinkedFiles([w], { maxEntries: 2 })).complete, false);
    assertEquals(linkedFilesWarning({ files: [], count: 0, complete: true }, w), undefined);
  } finally {
    await Deno.remove(store, { recursive: true });
    await Deno.remove(w, { recursive: true });
  }
});
