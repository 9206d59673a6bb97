// Persistence through the write grant (issue 26, item 2): inside a writable workspace a
// command must not plant what runs later outside harness: git hooks, git config, a gitlink in
// the index (a nested repository's config then runs on the user's next `git status`), the
// project's .harness settings, plugin folders. `git commit` fails with a sentence saying why,
// and works with --writable-git. Needs bubblewrap and git.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { type SandboxHost, sandboxHost } from "../../helpers/sandbox_host.ts";

const linux = Deno.build.os === "linux";
const GIT = "git -c user.name=t -c user.email=t@t -c commit.gpgsign=false";

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@t", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

/** A workspace that is a git repository with one commit, plus .harness and ./tools. */
function repoHost(options: { writableGit?: boolean } = {}): Promise<SandboxHost> {
  return sandboxHost(
    ({ workspace }) => [
      `--allow-read=${workspace}`,
      `--allow-write=${workspace}`,
      "--allow-run",
    ],
    {
      files: ({ workspace }) => ({
        [join(workspace, "README.md")]: "readme\n",
        [join(workspace, ".harness", "config.jsonc")]: "{}\n",
        [join(workspace, "tools", "helper.ts")]: "export default 1;\n",
      }),
      setup: async ({ workspace }) => {
        await git(workspace, "init", "-q");
        await git(workspace, "add", "README.md");
        await git(workspace, "commit", "-q", "-m", "init");
      },
      pluginFolders: ({ workspace }) => [join(workspace, "tools")],
      ...options,
    },
  );
}

async function run(s: SandboxHost, command: string): Promise<string> {
  const result = await s.call("run_command", { command });
  return String(result.data ?? result.error_message);
}

Deno.test({
  name: "a command cannot write git hooks, git config or the index inside the write grant",
  ignore: !linux,
  async fn() {
    await using s = await repoHost();
    const ws = s.workspace;
    const configBefore = await Deno.readTextFile(join(ws, ".git", "config"));
    const indexBefore = await Deno.readFile(join(ws, ".git", "index"));
    const head = await git(ws, "rev-parse", "HEAD");
    const out = await run(
      s,
      [
        "printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/post-checkout",
        "git config core.fsmonitor 'touch pwned'",
        "git config --global alias.st '!touch pwned' 2>/dev/null",
        `git update-index --add --cacheinfo 160000,${head},sub`,
        "rm -rf .git/hooks; mv .git .git-old",
        "echo ok > notes.txt",
      ].join("; "),
    );
    await Deno.stat(join(ws, ".git", "hooks", "post-checkout")).then(
      () => assert(false, `a hook was planted: ${out}`),
      () => {},
    );
    assertEquals(await Deno.readTextFile(join(ws, ".git", "config")), configBefore, out);
    assertEquals(await Deno.readFile(join(ws, ".git", "index")), indexBefore, out);
    assertEquals(await Deno.readTextFile(join(ws, "notes.txt")), "ok\n", out);
  },
});

Deno.test({
  name: "a command cannot change .harness or a plugin folder inside the write grant",
  ignore: !linux,
  async fn() {
    await using s = await repoHost();
    const out = await run(
      s,
      "echo '{\"mcp_servers\":{}}' > .harness/config.jsonc; echo evil > .harness/policies.jsonc; " +
        "echo 'export default 2;' > tools/helper.ts; echo new > tools/new.ts",
    );
    assertEquals(await Deno.readTextFile(join(s.workspace, ".harness", "config.jsonc")), "{}\n");
    await Deno.stat(join(s.workspace, ".harness", "policies.jsonc")).then(
      () => assert(false, out),
      () => {},
    );
    assertEquals(
      await Deno.readTextFile(join(s.workspace, "tools", "helper.ts")),
      "export default 1;\n",
    );
    assert(out.includes("Read-only file system"), out);
  },
});

Deno.test({
  name: "git commit fails with a sentence naming --writable-git, and works with it",
  ignore: !linux,
  async fn() {
    {
      await using s = await repoHost();
      const out = await run(s, `echo change >> README.md; ${GIT} commit -qam change`);
      assert(out.includes("--writable-git"), out);
      assertEquals(await git(s.workspace, "rev-list", "--count", "HEAD"), "1");
    }
    {
      await using s = await repoHost({ writableGit: true });
      const out = await run(s, `echo change >> README.md; ${GIT} commit -qam change`);
      assertEquals(await git(s.workspace, "rev-list", "--count", "HEAD"), "2", out);
    }
  },
});

Deno.test({
  name: "a command in a linked worktree cannot write the main repository's config",
  ignore: !linux,
  async fn() {
    await using s = await sandboxHost(
      ({ workspace, outside }) => [
        `--allow-read=${workspace},${outside}`,
        `--allow-write=${workspace},${outside}`,
        "--allow-run",
      ],
      {
        outsideParent: "/var/tmp",
        setup: async ({ workspace, outside }) => {
          const main = join(outside, "main");
          await Deno.mkdir(main);
          await git(main, "init", "-q");
          await git(main, "commit", "-q", "--allow-empty", "-m", "init");
          await Deno.remove(workspace);
          await git(main, "worktree", "add", "-q", workspace);
        },
      },
    );
    const config = join(s.outside, "main", ".git", "config");
    const before = await Deno.readTextFile(config);
    const out = await run(s, "git config core.fsmonitor 'touch pwned'; git config --list");
    assertEquals(await Deno.readTextFile(config), before, out);
  },
});
