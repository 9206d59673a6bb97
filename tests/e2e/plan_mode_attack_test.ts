// Plan mode through the real front end (`harness -p --plan`, the model's calls as it would make
// them): 0 of the 50 writes a model might try persist (sed -i, redirection, git commit, a
// script's open-for-write, a package install, ...), while 20 of 20 read and test commands
// succeed. The same commands as tests/sandbox/plan_mode_grants_attack_test.ts, whose control
// run shows they change a workspace outside plan mode. Needs bubblewrap, git, node and npm.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { hasCommand } from "../helpers/system_commands.ts";
import { PLAN_READS, PLAN_WRITES, planWorkspace } from "../fixtures/plan_mode_commands.ts";

const ready = Deno.build.os === "linux" && hasCommand("bwrap") && hasCommand("git") &&
  hasCommand("node") && hasCommand("npm");

/** Every entry under `root`: kind, mode, size, mtime, link and content. */
async function snapshot(
  root: string,
  out = new Map<string, string>(),
): Promise<Map<string, string>> {
  for await (const entry of Deno.readDir(root)) {
    const path = join(root, entry.name);
    const info = await Deno.lstat(path);
    const content = info.isFile ? await Deno.readTextFile(path) : "";
    const link = info.isSymlink ? await Deno.readLink(path) : "";
    const mtime = info.isDirectory ? "" : String(info.mtime?.getTime());
    out.set(path, [info.mode, info.size, mtime, link, content].join("|"));
    if (info.isDirectory) await snapshot(path, out);
  }
  return out;
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((key) =>
    before.get(key) !== after.get(key)
  );
}

Deno.test({
  name: "harness -p --plan: 0 of 50 writes persist, 20 of 20 read and test commands succeed",
  ignore: !ready,
  async fn() {
    await using sandbox = await cliSandbox();
    const dirs = { workspace: sandbox.cwd, outside: join(sandbox.cwd, "..", "outside") };
    await Deno.mkdir(dirs.outside);
    for (const [path, text] of Object.entries(planWorkspace.files(dirs))) {
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await Deno.writeTextFile(path, text);
    }
    await planWorkspace.setup(dirs);
    const writes = PLAN_WRITES.map((command) => command.replaceAll("$OUTSIDE", dirs.outside));
    const call = (command: string) => ["run_command", { command, timeout_ms: 60_000 }] as const;
    await using server = startFakeLlmServer([
      writes.reduce((built, command) => built.toolCall(...call(command)), reply()),
      PLAN_READS.reduce((built, [command]) => built.toolCall(...call(command)), reply()),
      reply().text("Explored."),
    ]);
    const before = await snapshot(sandbox.cwd, await snapshot(dirs.outside));
    const out = await sandbox.run([
      "-p",
      "Look around",
      "--plan",
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--max-tool-calls",
      "50",
    ]);
    assertEquals(out.code, 0, out.stderr);
    const after = await snapshot(sandbox.cwd, await snapshot(dirs.outside));
    assertEquals(changed(before, after), [], "a write persisted");
    const results = (server.requests.at(-1)?.messages ?? []).filter((m) => m.role === "tool")
      .map((m) => JSON.parse(String(m.content)) as { data: string | null });
    assertEquals(results.length, 70);
    const failed = PLAN_READS.flatMap(([command, expected], i) => {
      const data = String(results[50 + i]?.data);
      return data.includes("exit_code: 0") && data.includes(expected)
        ? []
        : [`${command}: ${data.slice(0, 300)}`];
    });
    assertEquals(failed, []);
    assert(results.slice(0, 50).every((r) => r.data !== null), "every write attempt ran");
    console.log(`plan mode via -p --plan: 0 of 50 writes persisted, 20 of 20 reads succeeded`);
  },
});
