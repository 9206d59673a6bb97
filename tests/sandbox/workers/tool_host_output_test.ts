// A running tool's output reaches the host while it runs (ctx.progress -> "output" messages ->
// run's onOutput), so the terminal can show run_command's latest line before it finishes.

import { ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { discoverPlugins } from "../../../src/plugin_loader/load_plugins.ts";
import { probeCommandSandbox } from "../../../src/sandbox/commands/command_sandbox_probe.ts";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";
import { createToolHost } from "../../../src/sandbox/workers/tool_host.ts";

Deno.test({
  name: "run_command reports its output while it runs, before its result",
  ignore: Deno.build.os === "windows",
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_ws_" }));
    const parsed = parseGrantFlags(
      [`--allow-read=${workspace}`, `--allow-write=${workspace}`, "--allow-run"],
      { cwd: workspace },
    );
    if (!parsed.ok) throw new Error("bad flags");
    const grants = parsed.value.grants;
    const { files } = await discoverPlugins({ userDir: null, cwd: workspace, pluginDirs: [] });
    const { host } = await createToolHost({
      grants,
      workspace,
      dataDir: join(workspace, ".harness"),
      pluginFiles: files.filter((file) => file.path.endsWith("run_command.ts")),
      commandSandbox: probeCommandSandbox("off", { grants, env: Deno.env.toObject() }),
    });
    try {
      const seen: { text: string; at: number }[] = [];
      const started = performance.now();
      const args = await host.validate("run_command", {
        command: "echo compiling; echo 'step 1 of 3'; sleep 1.5; echo finished",
      });
      if (!args.ok) throw new Error(args.error.join("; "));
      const run = await host.run("run_command", args.value, {
        state: {},
        onOutput: (text) => seen.push({ text, at: performance.now() - started }),
      });
      const finishedAt = performance.now() - started;
      assert(run.result.success, JSON.stringify(run.result));
      const early = seen.find((entry) => entry.text.includes("step 1 of 3"));
      assert(early, JSON.stringify(seen));
      // Reported about a second before the command ended.
      assert(early.at < finishedAt - 700, `${early.at} vs ${finishedAt}`);
    } finally {
      await host.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});
