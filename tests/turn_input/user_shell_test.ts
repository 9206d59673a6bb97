// `!command` through the real tool host: it runs as run_command runs the model's commands (the
// command sandbox of the grants), without asking, and says which flag it needs without one.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { runUserShell } from "../../src/turn_input/user_shell.ts";
import { type LoopHost, openLoopHost, toolScope } from "../helpers/loop_host.ts";
import { offerTools } from "../../src/sandbox/grants/tool_offer.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";

/** What a `!command` of the loop host's workspace runs with (every tool offered). */
function shellTools(loop: LoopHost) {
  const scope = toolScope(loop.host);
  return { ready: () => scope.set.ready(), offer: () => offerTools(scope, undefined) };
}

const HAS_BWRAP = Deno.build.os === "linux" &&
  (await new Deno.Command("sh", { args: ["-c", "command -v bwrap"] }).output()).success;

Deno.test("runUserShell() runs the command and gives its output and the message for the model", async () => {
  await using loop = await openLoopHost({
    builtins: true,
    grants: ["--allow-read=.", "--allow-write=.", "--allow-run"],
  });
  const outcome = await runUserShell("echo hello from the user", shellTools(loop), { state: {} });
  assert(outcome.ok, JSON.stringify(outcome));
  assert(outcome.output.startsWith("hello from the user\n"), outcome.output);
  assert(outcome.output.endsWith("exit_code: 0"), outcome.output);
  assertEquals(
    outcome.message,
    `I ran this command in the workspace:\n$ echo hello from the user\n${outcome.output}`,
  );
});

Deno.test("runUserShell() without --allow-run says which flag it needs and runs nothing", async () => {
  await using loop = await openLoopHost({ builtins: true, grants: ["--allow-read=."] });
  // What the run offers: the tools the sandbox can run, and the flag the others need.
  const grants = parseGrantFlags(["--allow-read=."], { cwd: loop.workspace });
  assert(grants.ok);
  const scope = { ...toolScope(loop.host), grants: grants.value.grants, workspace: loop.workspace };
  const offered = { ready: () => scope.set.ready(), offer: () => offerTools(scope, undefined) };
  const outcome = await runUserShell("touch made.txt", offered, { state: {} });
  assert(!outcome.ok);
  assertEquals(
    outcome.error,
    'Cannot run "touch made.txt": commands need --allow-run: restart harness with --allow-run ' +
      "(they run in the same sandbox as the model's run_command)",
  );
});

Deno.test({
  name: "runUserShell() runs in the command sandbox: a write outside the write grant fails",
  ignore: !HAS_BWRAP,
  async fn() {
    await using loop = await openLoopHost({
      builtins: true,
      grants: ["--allow-read=.", "--allow-write=.", "--allow-run"],
    });
    const outside = await Deno.makeTempDir({ prefix: "harness_outside_" });
    try {
      const target = join(outside, "escaped.txt");
      const outcome = await runUserShell(
        `echo in > inside.txt; echo out > ${target}`,
        shellTools(loop),
        { state: {} },
      );
      assert(outcome.ok, JSON.stringify(outcome));
      assertEquals(await Deno.readTextFile(join(loop.workspace, "inside.txt")), "in\n");
      await Deno.stat(target).then(
        () => assert(false, `the command wrote ${target} outside the grants`),
        (error) => assert(error instanceof Deno.errors.NotFound, String(error)),
      );
      assert(!outcome.output.endsWith("exit_code: 0"), outcome.output);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },
});

Deno.test({
  name: "runUserShell() attack: .git stays read-only, as for the model's commands",
  ignore: !HAS_BWRAP,
  async fn() {
    // A command the user typed is not asked about, but a hook it plants would run outside
    // harness at the next git command: the command sandbox keeps .git read-only all the same.
    await using loop = await openLoopHost({
      builtins: true,
      grants: ["--allow-read=.", "--allow-write=.", "--allow-run"],
      files: { ".git/config": "[core]\n", "README.md": "x\n" },
    });
    const outcome = await runUserShell(
      "echo ok > notes.txt; mkdir -p .git/hooks; echo 'touch pwned' > .git/hooks/post-checkout; " +
        "echo '[core] fsmonitor = touch pwned' >> .git/config",
      shellTools(loop),
      { state: {} },
    );
    assert(outcome.ok, JSON.stringify(outcome));
    assertEquals(await Deno.readTextFile(join(loop.workspace, "notes.txt")), "ok\n");
    assertEquals(await Deno.readTextFile(join(loop.workspace, ".git", "config")), "[core]\n");
    await Deno.stat(join(loop.workspace, ".git", "hooks", "post-checkout")).then(
      () => assert(false, "the command planted a git hook"),
      (error) => assert(error instanceof Deno.errors.NotFound, String(error)),
    );
    assert(/read-only|Read-only/i.test(outcome.output), outcome.output);
  },
});
