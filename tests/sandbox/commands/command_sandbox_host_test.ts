// ctx.spawn through a real tool host: a plugin's process runs in the command sandbox of the
// user's grants, and the host stops the process groups of a worker it closes, also when
// commands run unconfined. Needs bubblewrap (fails without it).

import { ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { discoverPlugins } from "../../../src/plugin_loader/load_plugins.ts";
import { type CommandSandboxMode } from "../../../src/sandbox/commands/command_sandbox.ts";
import { probeCommandSandbox } from "../../../src/sandbox/commands/command_sandbox_probe.ts";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";
import { createToolHost, type ToolHost } from "../../../src/sandbox/workers/tool_host.ts";
import {
  processesWith,
  uniqueSleep,
  waitUntilGone,
  waitUntilRunning,
} from "../../helpers/processes.ts";

const fixtures = fileURLToPath(new URL("../../fixtures/plugins/spawn", import.meta.url));
const linux = Deno.build.os === "linux";

async function spawnHost(mode: CommandSandboxMode) {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_ws_" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_out_" }));
  const parsed = parseGrantFlags(
    [`--allow-read=${workspace}`, `--allow-write=${workspace}`, "--allow-run"],
    { cwd: workspace },
  );
  if (!parsed.ok) throw new Error("bad flags");
  const grants = parsed.value.grants;
  const { files } = await discoverPlugins({
    builtinDir: null,
    userDir: null,
    cwd: workspace,
    pluginDirs: [fixtures],
  });
  const { host, errors } = await createToolHost({
    grants,
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: files,
    commandSandbox: probeCommandSandbox(mode, { grants, env: Deno.env.toObject() }),
  });
  assert(errors.length === 0, JSON.stringify(errors));
  let closed = false;
  return {
    host: host as ToolHost,
    workspace,
    outside,
    async close() {
      if (closed) return;
      closed = true;
      await host.close();
    },
    async [Symbol.asyncDispose]() {
      await this.close();
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

Deno.test({
  name: "ctx.spawn runs a plugin's process in the command sandbox of the grants",
  ignore: !linux,
  async fn() {
    await using s = await spawnHost("required");
    const target = join(s.outside, "pwned.txt");
    const run = await s.host.run("spawn_sh", {
      script: `echo in > ${s.workspace}/in.txt; echo x > ${target}; touch /etc/pwned`,
    }, { state: {} });
    const output = String(run.result.data);
    assert(run.result.success, JSON.stringify(run.result));
    assert(output.includes("Read-only file system"), output);
    assert(output.includes("--allow-write=/etc"), output);
    assert(await Deno.readTextFile(join(s.workspace, "in.txt")) === "in\n");
    await Deno.stat(target).then(
      () => assert(false, "the plugin's process wrote outside the workspace"),
      () => {},
    );
  },
});

for (const mode of ["auto", "off"] as const) {
  Deno.test({
    name:
      `closing the tool host stops the processes a plugin left running (command sandbox ${mode})`,
    ignore: !linux,
    async fn() {
      await using s = await spawnHost(mode);
      const sleep = uniqueSleep();
      try {
        const run = await s.host.run("spawn_sh", {
          script: `sleep ${sleep}`,
          background: true,
        }, { state: {} });
        assert(run.result.success, JSON.stringify(run.result));
        const summary = String(run.result.data);
        assert(summary.includes(mode === "off" ? "unconfined" : "bubblewrap"), summary);
        assert(await waitUntilRunning(`sleep ${sleep}`), "the process did not start");
        await s.close();
        assert(await waitUntilGone(`sleep ${sleep}`), `sleep ${sleep} outlived the tool host`);
      } finally {
        for (const pid of processesWith(`sleep ${sleep}`)) Deno.kill(pid, "SIGKILL");
      }
    },
  });
}
