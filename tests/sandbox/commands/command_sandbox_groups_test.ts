// Stopping a command kills what it started also when that left the command's process group.
// bubblewrap's namespace init calls setsid (--new-session) a moment before it binds its life
// to the sandbox process (--die-with-parent): a group SIGKILLed in between left the sandboxed
// command running, orphaned, which closing the tool host under load showed now and then. The
// fake bubblewrap here holds that moment open: its command is in a session of its own and
// nothing ties it to its parent.

import { ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";
import type { CommandSandbox } from "../../../src/sandbox/commands/command_sandbox.ts";
import { spawnCommand } from "../../../src/sandbox/commands/command_sandbox.ts";
import { probeCommandSandbox } from "../../../src/sandbox/commands/command_sandbox_probe.ts";
import { signalGroup } from "../../../src/sandbox/commands/command_sandbox_groups.ts";
import { ProcessHost } from "../../../src/sandbox/processes/process_host.ts";
import { newSpawnReplyBuffer, readSpawnReply } from "../../../src/sandbox/processes/spawn_reply.ts";
import { processesWith, uniqueSleep, waitUntilGone } from "../../helpers/processes.ts";

const linux = Deno.build.os === "linux";

/** A stand-in for bubblewrap: skips its options and runs the command in a new session. */
const FAKE_BWRAP = `#!/bin/sh
while [ "$1" != "--" ]; do shift; done
shift
setsid "$@" &
wait
`;

/**
 * Waits, busily (the moment lasts microseconds), until a child of `pid` is in another process
 * group: bubblewrap's namespace init has called setsid. False if `pid` ended first.
 */
function untilChildLeftGroup(pid: number, ms = 10_000): boolean {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const children = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).split(" ");
      for (const child of children.filter((word) => /^\d+$/.test(word))) {
        const stat = Deno.readTextFileSync(`/proc/${child}/stat`);
        if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pid) return true;
      }
    } catch {
      if (processesWith(`${pid}`).length === 0) return false;
    }
  }
  return false;
}

/** Waits until the `sleep` of `marker` leads a session of its own (it left the group). */
async function untilDetached(marker: string, ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    for (const pid of processesWith(marker)) {
      try {
        const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (stat.includes("(sleep)") && Number(fields[3]) === pid) return true;
      } catch { /* gone meanwhile */ }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

async function tempSetup() {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_kill_" }));
  const fake = join(dir, "bwrap");
  await Deno.writeTextFile(fake, FAKE_BWRAP);
  await Deno.chmod(fake, 0o755);
  const parsed = parseGrantFlags([`--allow-read=${dir}`, "--allow-run"], { cwd: dir });
  if (!parsed.ok) throw new Error("bad flags");
  const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
  return {
    dir,
    grants: parsed.value.grants,
    sandbox: (program: string | undefined): CommandSandbox =>
      program === undefined
        ? { mode: "off", confinement: { kind: "none", reason: "test" }, env }
        : { mode: "auto", confinement: { kind: "bwrap", program }, env },
    fake,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test({
  name: "closing a worker's process host kills a sandbox whose init left the process group",
  ignore: !linux,
  async fn() {
    await using t = await tempSetup();
    const host = new ProcessHost({ sandbox: t.sandbox(t.fake), grants: t.grants, run: true });
    const sleep = uniqueSleep();
    try {
      const reply = newSpawnReplyBuffer();
      host.spawn(1, { program: "sleep", args: [sleep], cwd: t.dir, stdout: "null" }, reply);
      const answer = readSpawnReply(reply, 5000);
      assert(answer.ok, JSON.stringify(answer));
      assert(await untilDetached(`sleep ${sleep}`), "the sleep did not start in a new session");
      host.close();
      assert(await waitUntilGone(`sleep ${sleep}`), `sleep ${sleep} outlived its process host`);
    } finally {
      for (const pid of processesWith(`sleep ${sleep}`)) Deno.kill(pid, "SIGKILL");
    }
  },
});

Deno.test({
  name: "SIGKILL to a command's group also kills what it started in a new session (unconfined)",
  ignore: !linux,
  async fn() {
    await using t = await tempSetup();
    const sleep = uniqueSleep();
    const child = spawnCommand(t.sandbox(undefined), t.grants, {
      program: "sh",
      args: ["-c", `setsid sleep ${sleep} & wait`],
      cwd: t.dir,
      stdout: "null",
      stderr: "null",
    });
    try {
      assert(await untilDetached(`sleep ${sleep}`), "the sleep did not start in a new session");
      assert(signalGroup(child.pid, "SIGKILL"), "the group was gone already");
      await child.status;
      assert(await waitUntilGone(`sleep ${sleep}`), `sleep ${sleep} outlived its group's kill`);
    } finally {
      for (const pid of processesWith(`sleep ${sleep}`)) Deno.kill(pid, "SIGKILL");
    }
  },
});

Deno.test({
  name: "closing a process host as bubblewrap's init leaves the group kills the sandbox",
  ignore: !linux,
  async fn() {
    await using t = await tempSetup();
    const sandbox = await probeCommandSandbox("required", {
      grants: t.grants,
      env: Deno.env.toObject(),
    });
    assert(sandbox.confinement.kind === "bwrap", JSON.stringify(sandbox.confinement));
    const markers: string[] = [];
    try {
      for (let round = 0; round < 10; round++) {
        const host = new ProcessHost({ sandbox, grants: t.grants, run: true });
        const sleep = uniqueSleep();
        markers.push(`sleep ${sleep}`);
        const reply = newSpawnReplyBuffer();
        host.spawn(1, { program: "sleep", args: [sleep], cwd: t.dir, stdout: "null" }, reply);
        const answer = readSpawnReply(reply, 5000);
        assert(answer.ok, JSON.stringify(answer));
        assert(untilChildLeftGroup(answer.pid), "bubblewrap's init never left its group");
        host.close();
        assert(
          await waitUntilGone(`sleep ${sleep}`),
          `round ${round}: sleep ${sleep} outlived its process host`,
        );
      }
    } finally {
      for (const marker of markers) {
        for (const pid of processesWith(marker)) Deno.kill(pid, "SIGKILL");
      }
    }
  },
});
