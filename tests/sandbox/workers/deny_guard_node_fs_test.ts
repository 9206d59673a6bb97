// Where a plugin's own node:fs meets the worker's deny guard (issue 38, item 6). Deno's node:fs
// calls some of Deno's own functions, which the guard wraps: renaming, removing, making folders,
// copying, linking and changing modes of a protected path (.git) inside the write grant are
// refused like the built-in tools' writes. Writing a file's bytes (writeFile, appendFile, open
// for writing, truncate, streams, cp) goes straight to Deno's internal operations, bound when
// Deno starts, which no guard in the worker can wrap: only Deno's write grant checks those
// (docs/security.md, "Sandbox limits"). This test keeps the first half true.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { sandboxHost } from "../../helpers/sandbox_host.ts";

const PLUGIN = `import * as fs from "node:fs";
export default ({ z, defineTool }) => defineTool({
  name: "node_fs",
  description: "Changes .git with node:fs.",
  risk: "low",
  parameters: z.object({}),
  permissions: { read: ["."], write: ["."] },
  run: (_args, ctx) => {
    const git = ctx.workspace + "/.git";
    const tries = {
      rename: () => fs.renameSync(git + "/config", git + "/config.old"),
      rm: () => fs.rmSync(git + "/config"),
      unlink: () => fs.unlinkSync(git + "/config"),
      mkdir: () => fs.mkdirSync(git + "/hooks/x"),
      copyFile: () => fs.copyFileSync(ctx.workspace + "/a.txt", git + "/config"),
      symlink: () => fs.symlinkSync(ctx.workspace + "/a.txt", git + "/hooks/pre-commit"),
      link: () => fs.linkSync(ctx.workspace + "/a.txt", git + "/hooks/pre-commit"),
      chmod: () => fs.chmodSync(git + "/config", 0o777),
      utimes: () => fs.utimesSync(git + "/config", new Date(0), new Date(0)),
    };
    const out = [];
    for (const [name, attempt] of Object.entries(tries)) {
      try {
        attempt();
        out.push(name + ": done");
      } catch (error) {
        out.push(name + ": " + error.name);
      }
    }
    return { output: out.join("\\n") };
  },
});
`;

Deno.test("a plugin's node:fs cannot rename, remove, make, copy over or link into .git", async () => {
  await using s = await sandboxHost(
    ({ workspace }) => [`--allow-read=${workspace}`, `--allow-write=${workspace}`],
    {
      builtins: [],
      plugins: { "node_fs.ts": PLUGIN },
      files: ({ workspace }) => ({
        [join(workspace, ".git", "config")]: "[core]\n",
        [join(workspace, ".git", "hooks", "README")]: "hooks\n",
        [join(workspace, "a.txt")]: "#!/bin/sh\ntouch pwned\n",
      }),
    },
  );
  assertEquals(s.errors, []);
  const result = await s.call("node_fs", {});
  assertEquals(String(result.data).split("\n"), [
    "rename: NotCapable",
    "rm: NotCapable",
    "unlink: NotCapable",
    "mkdir: NotCapable",
    "copyFile: NotCapable",
    "symlink: NotCapable",
    "link: NotCapable",
    "chmod: NotCapable",
    "utimes: NotCapable",
  ]);
  assertEquals(await Deno.readTextFile(join(s.workspace, ".git", "config")), "[core]\n");
  const hooks = [...Deno.readDirSync(join(s.workspace, ".git", "hooks"))].map((e) => e.name);
  assertEquals(hooks, ["README"]);
});
