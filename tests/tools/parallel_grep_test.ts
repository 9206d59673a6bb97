// grep_search on several cores (src/tools/search/parallel_grep.ts with real helper Workers from
// src/sandbox/search_helpers.ts) against the sequential search on the same generated
// repository: the same summary, byte for byte, for every pattern, cap and filter. Then the
// helpers as a hostile tool would use them: they hand over any path, yet a helper reads only
// what its grant and deny list allow.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import {
  type EffectivePermissions,
  noPermissions,
} from "../../src/sandbox/effective_permissions.ts";
import { helperPermissions, SearchHelpers } from "../../src/sandbox/search_helpers.ts";
import { type GrepOptions, grepTree } from "../../src/tools/search/grep_files.ts";
import { grepTreeParallel } from "../../src/tools/search/parallel_grep.ts";
import { buildSearchTree } from "../helpers/search_tree.ts";

function sandbox(read: string[], deniedReads: string[] = []): EffectivePermissions {
  return {
    permissions: { ...noPermissions(), read },
    guard: deniedReads.length ? { read: deniedReads } : {},
  };
}

async function withTree(
  count: number,
  fn: (root: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_pgrep_" }));
  try {
    await buildSearchTree(root, count);
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function options(pattern: string, extra: Partial<GrepOptions> = {}): GrepOptions {
  return {
    pattern,
    caseSensitive: false,
    maxResults: 1000,
    includeHidden: false,
    respectGitignore: true,
    ...extra,
  };
}

Deno.test("grepTreeParallel() gives grepTree()'s summary for every pattern, cap and filter", async () => {
  await withTree(700, async (root) => {
    const helpers = new SearchHelpers(sandbox([root]), root, 2);
    try {
      assertEquals(helpers.size, 2);
      const cases: GrepOptions[] = [
        options("needle"),
        options("needle", { caseSensitive: true }),
        options("needle", { maxResults: 1 }),
        options("needle", { maxResults: 7 }),
        options("return", { maxResults: 200 }),
        options("x", { maxResults: 1000 }),
        options("foo*bar"),
        options("deprecated*since", { maxResults: 3 }),
        options("déjà"),
        options("日本*needle"),
        options("zzz_absent"),
        options("needle", { includeHidden: true, respectGitignore: false }),
        options("needle", { fileFilter: "*.md" }),
        options("needle", { fileFilter: "src/**/*.ts", maxResults: 2 }),
        options("needle", { fileFilter: "*.nothing" }),
      ];
      for (const option of cases) {
        const sequential = grepTree(root, "", option);
        const parallel = await grepTreeParallel(root, "", option, helpers.ports());
        assertEquals(parallel, sequential, JSON.stringify(option));
        // The helpers alone (the walker only walks): the same answer.
        const helpersOnly = await grepTreeParallel(root, "", option, helpers.ports(), {
          walkerSearches: false,
        });
        assertEquals(helpersOnly, sequential, `helpers only: ${JSON.stringify(option)}`);
      }
      // The fixture is big enough to spread: 700 files make 20+ chunks.
      assert(grepTree(root, "", options("zzz_absent")).filesSearched > 600);
    } finally {
      helpers.close();
    }
  });
});

Deno.test("grepTreeParallel() grows its shared path list past its first size", async () => {
  // 5,000 files with long names: more paths (4,096) and bytes (256 KiB) than the list starts with.
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_pgrep_" }));
  const helpers = new SearchHelpers(sandbox([root]), root, 1);
  try {
    for (let d = 0; d < 50; d++) {
      const dir = join(root, `folder_with_a_long_name_${d}`);
      Deno.mkdirSync(dir);
      for (let f = 0; f < 100; f++) {
        Deno.writeTextFileSync(
          join(dir, `file_with_a_long_name_${f}.txt`),
          f % 37 === 0 ? `needle ${d}/${f}\n` : "hay\n",
        );
      }
    }
    const option = options("needle");
    const sequential = grepTree(root, "", option);
    assertEquals(sequential.filesSearched, 5000);
    assertEquals(
      await grepTreeParallel(root, "", option, helpers.ports(), { walkerSearches: false }),
      sequential,
    );
  } finally {
    helpers.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("grepTreeParallel() with no helpers, or a subfolder start, matches grepTree()", async () => {
  await withTree(100, async (root) => {
    const option = options("needle");
    assertEquals(await grepTreeParallel(root, "", option, []), grepTree(root, "", option));
    assertEquals(await grepTreeParallel(root, "src", option, []), grepTree(root, "src", option));
  });
});

Deno.test("a search helper skips a file its --deny-read list names, though the walker hands it over", async () => {
  await withTree(50, async (root) => {
    const secret = join(root, "src", "nested", "deeper", "secret.txt");
    await Deno.writeTextFile(secret, "needle: the secret\n");
    const helpers = new SearchHelpers(sandbox([root], [secret]), root, 1);
    try {
      // The walker (this test's thread) has no guard: only the helper searches.
      const summary = await grepTreeParallel(root, "", options("the secret"), helpers.ports(), {
        walkerSearches: false,
      });
      assertEquals(summary.matches, []);
      assertEquals(summary.deniedFiles, ["src/nested/deeper/secret.txt"]);
      // Refused before it is opened, not found out afterwards: a pattern it does not contain
      // still lists it as skipped (node:fs opens past the guard unless FileReader asks it).
      const absent = await grepTreeParallel(root, "", options("zzz_absent"), helpers.ports(), {
        walkerSearches: false,
      });
      assertEquals(absent.deniedFiles, ["src/nested/deeper/secret.txt"]);
      // Without the guard the same search finds it: the guard is what keeps it out.
      assertEquals(grepTree(root, "", options("the secret")).matches.length, 1);
    } finally {
      helpers.close();
    }
  });
});

Deno.test("a search helper reads nothing outside its read grant", async () => {
  await withTree(50, async (root) => {
    // Granted only src/: every other file the walker publishes must be refused by Deno.
    const helpers = new SearchHelpers(sandbox([join(root, "src")]), root, 1);
    try {
      const summary = await grepTreeParallel(root, "", options("needle"), helpers.ports(), {
        walkerSearches: false,
      });
      const everywhere = grepTree(root, "", options("needle"));
      assert(everywhere.matches.some((m) => !m.path.startsWith("src/")));
      assert(summary.matches.length > 0);
      assert(summary.matches.every((m) => m.path.startsWith("src/")), "a match outside src/");
      assert(
        summary.deniedFiles.length > 0 && summary.deniedFiles.every((p) => !p.startsWith("src/")),
      );
      // Within the grant the same helper answers as the sequential search does.
      const inside = await grepTreeParallel(root, "src", options("needle"), helpers.ports(), {
        walkerSearches: false,
      });
      assertEquals(inside, grepTree(root, "src", options("needle")));
    } finally {
      helpers.close();
    }
  });
});

Deno.test("search helpers get the group's read grant and nothing else", () => {
  const permissions = helperPermissions({
    permissions: {
      read: ["/w"],
      write: ["/w"],
      net: true,
      run: ["git"],
      env: true,
      sys: true,
      ffi: true,
      import: false,
    },
    guard: { read: ["/w/.env"] },
  });
  assertEquals(permissions, {
    read: ["/w"],
    write: false,
    net: false,
    run: false,
    env: false,
    sys: false,
    ffi: false,
    import: false,
  });
  // A group that may not read gets no helpers at all.
  const helpers = new SearchHelpers(sandbox([]), "/", 2);
  assertEquals(helpers.size, 2); // read: [] is still a list; Deno refuses every file
  helpers.close();
  const none = new SearchHelpers(
    {
      ...sandbox([]),
      permissions: { ...sandbox([]).permissions, read: false },
    },
    "/",
    2,
  );
  assertEquals(none.size, 0);
});
