// Child process of bench/jobs_bench.ts: opens a real tool host (as harness does), starts the
// process shapes as a background job through run_command, prints "ready", then waits to be
// killed with SIGKILL (what `kill -9` of harness does to it).

import { createToolHost } from "../src/sandbox/workers/tool_host.ts";
import { discoverPlugins } from "../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";

const [workspace, command] = Deno.args;
if (!workspace || !command) throw new Error("usage: jobs_host_child.ts WORKSPACE COMMAND");
const grants = parseGrantFlags(["--allow-read=.", "--allow-write=.", "--allow-run"], {
  cwd: workspace,
});
if (!grants.ok) throw new Error("the grants do not parse");
const found = await discoverPlugins({ cwd: workspace, userDir: "/nonexistent", pluginDirs: [] });
const { host } = await createToolHost({
  grants: grants.value.grants,
  workspace,
  dataDir: `${workspace}/.data`,
  pluginFiles: found.files.filter((f) => f.origin === "builtin" && f.name === "run_command"),
});
const validated = await host.validate("run_command", { command, background: true });
if (!validated.ok) throw new Error(validated.error.join("\n"));
const run = await host.run("run_command", validated.value, { state: {} });
console.log(`ready ${run.result.data}`);
await new Promise(() => {});
