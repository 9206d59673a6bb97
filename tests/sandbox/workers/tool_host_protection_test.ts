// The sibling of command_sandbox_protection_test.ts for tools: write_file and edit_file run in a
// worker with the workspace's write grant, so without a check they would plant a git hook or
// config the user's next `git status` runs. .git stays read-only for tools too unless the
// user passes --writable-git; a change to a project file still works.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { sandboxHost } from "../../helpers/sandbox_host.ts";

for (const writableGit of [false, true]) {
  Deno.test(`write_file ${writableGit ? "may" : "cannot"} write .git (--writable-git ${writableGit})`, async () => {
    await using s = await sandboxHost(
      ({ workspace }) => [`--allow-read=${workspace}`, `--allow-write=${workspace}`],
      {
        builtins: ["write_file"],
        writableGit,
        files: ({ workspace }) => ({ [join(workspace, ".git", "config")]: "[core]\n" }),
      },
    );
    const hook = await s.call("write_file", {
      path: ".git/hooks/post-checkout",
      content: "#!/bin/sh\ntouch pwned\n",
    });
    const config = await s.call("write_file", {
      path: ".git/config",
      content: "[core]\n\tfsmonitor = touch pwned\n",
    });
    const readme = await s.call("write_file", { path: "README.md", content: "ok\n" });
    assertEquals(readme.success, true, JSON.stringify(readme));
    if (writableGit) {
      assertEquals([hook.success, config.success], [true, true], JSON.stringify([hook, config]));
      return;
    }
    for (const result of [hook, config]) {
      assertEquals(result.error_type, "permission_denied", JSON.stringify(result));
      assert(String(result.error_message).includes("--writable-git"), result.error_message ?? "");
    }
    assertEquals(await Deno.readTextFile(join(s.workspace, ".git", "config")), "[core]\n");
    await Deno.stat(join(s.workspace, ".git", "hooks")).then(() => assert(false), () => {});
  });
}
