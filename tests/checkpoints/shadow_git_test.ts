// initShadowRepo() when several sessions start in a new workspace at the same moment: each
// git init meets the others' lock on the config, and every one of them must still open the
// repository (a session whose init failed had no checkpoints for its whole run).

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { gitText, initShadowRepo, type ShadowRepo } from "../../src/checkpoints/shadow_git.ts";

Deno.test("initShadowRepo() from many processes at once: every one opens the repository", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_init_" }));
  try {
    const workTree = join(root, "work");
    Deno.mkdirSync(workTree);
    for (let round = 0; round < 4; round++) {
      const gitDir = join(root, `git${round}`);
      const repos: ShadowRepo[] = Array.from({ length: 12 }, (_, i) => ({
        git: "git",
        gitDir,
        workTree,
        indexFile: join(gitDir, `index-${i}`),
      }));
      const outcomes = await Promise.allSettled(repos.map((repo) => initShadowRepo(repo)));
      const failed = outcomes.flatMap((o) => o.status === "rejected" ? [String(o.reason)] : []);
      assertEquals(failed, [], `round ${round}`);
      assertEquals((await gitText(repos[0]!, ["rev-parse", "--git-dir"])).trim(), gitDir);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
