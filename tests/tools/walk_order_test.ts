// firstInWalkOrder against the walk itself: the built-in walk's order of a real tree with
// names that sort around "/" ("a-b", "a.b", "a b", "a"), and every cap.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { walkOrderKey } from "../../src/tools/search/denied_paths.ts";
import { walkTree } from "../../src/tools/search/walk_tree.ts";
import { firstInWalkOrder } from "../../src/tools/search/walk_order.ts";

Deno.test("firstInWalkOrder gives the walk's order, whole and capped, from any order", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const files = [
      "a/x",
      "a/b/y",
      "a-b/x",
      "a.b/x",
      "a b/c",
      "ab",
      "a0",
      "A/z",
      "é/x",
      "z/deep/er/still/f",
      "z/deep/er/f",
      "z/deep.f",
      "z/deep-f",
    ];
    for (const file of files) {
      await Deno.mkdir(`${dir}/${file.split("/").slice(0, -1).join("/")}`, { recursive: true });
      await Deno.writeTextFile(`${dir}/${file}`, "");
    }
    const walked: string[] = [];
    walkTree(dir, "", {
      includeHidden: false,
      respectGitignore: false,
      visit(entry) {
        if (entry.kind !== "dir") walked.push(entry.path);
      },
    });
    assertEquals(walked.length, files.length);
    const shuffled = [...walked].reverse();
    shuffled.push(...shuffled.splice(0, 5));
    for (let limit = 0; limit <= walked.length + 1; limit++) {
      assertEquals(firstInWalkOrder(shuffled, limit), walked.slice(0, limit), `limit ${limit}`);
    }
    assertEquals(firstInWalkOrder(shuffled, Infinity), walked);
    // The sort key the other searches use agrees.
    const byKey = [...shuffled].sort((p, q) => walkOrderKey(p) < walkOrderKey(q) ? -1 : 1);
    assertEquals(byKey, walked);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("firstInWalkOrder puts a file before the contents of a folder sorting after it", () => {
  assertEquals(firstInWalkOrder(["a/b/c", "a/b", "a"], 3), ["a", "a/b", "a/b/c"]);
  assertEquals(firstInWalkOrder([], 5), []);
});
