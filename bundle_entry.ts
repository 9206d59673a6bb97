// The entry of harness's bundle (scripts/build_bundle.ts builds it into .bundle/KEY/run.js with
// `deno bundle`), which main.ts imports instead of src/cli/run_cli.ts while it is fresh: one
// file and a few chunks load faster than the hundreds of modules of a run from source. Every
// module harness imports only when needed is a literal import here, so the bundler makes it a
// chunk of its own, loaded when first needed as from source. The tool worker is the bundle's
// other entry: tool_worker.js with every built-in tool, and tool_worker_NAME.js with one. The
// build's generated run.js hands this table to own_modules.ts with the built-in tools' list.

import type { BundledModules, OwnModulePath } from "./src/platform/own_modules.ts";
import type { runAcp as RunAcp } from "./src/acp/run_acp.ts";

export { runCli } from "./src/cli/run_cli.ts";

const modules: Record<OwnModulePath, () => Promise<unknown>> = {
  "src/cli/prompt_ahead.ts": () => import("./src/cli/prompt_ahead.ts"),
  "src/cli/run_conversation.ts": () => import("./src/cli/run_conversation.ts"),
  "src/cli/commands/direct_commands.ts": () => import("./src/cli/commands/direct_commands.ts"),
  "src/cli/commands/dispatch_command.ts": () => import("./src/cli/commands/dispatch_command.ts"),
  "src/cli/run_repl.ts": () => import("./src/cli/run_repl.ts"),
  "src/acp/run_acp.ts": () => import("./src/acp/run_acp.ts"),
  "src/sessions/open_session_store.ts": () => import("./src/sessions/open_session_store.ts"),
  "src/app/open_provider.ts": () => import("./src/app/open_provider.ts"),
  "src/mcp/mcp_servers.ts": () => import("./src/mcp/mcp_servers.ts"),
  "src/mcp/mcp_tools.ts": () => import("./src/mcp/mcp_tools.ts"),
  "src/mcp/mcp_server.ts": () => import("./src/mcp/mcp_server.ts"),
};

/** The bundle's lazy modules and workers, without the built-in tools' list. */
export const BUNDLED: BundledModules = {
  modules,
  // The index and change-watcher workers load from source: off the start-up path.
  workers: {
    "src/sandbox/workers/tool_worker.ts": new URL("./tool_worker.js", import.meta.url).href,
  },
};

/** `harness acp`'s front end, from the bundle's chunk. */
export async function loadRunAcp(): Promise<typeof RunAcp> {
  return (await modules["src/acp/run_acp.ts"]() as { runAcp: typeof RunAcp }).runAcp;
}
