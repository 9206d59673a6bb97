// harness_plugin.d.ts (HARNESS_PLUGIN_DTS) is a hand-written copy of the plugin contract in
// src/tools/define_tool.ts, kept as text so a compiled binary can write it. This test fails
// when the two differ: it writes the text to a temp folder beside a file that compares each
// declaration with define_tool.ts's at the type level, and type-checks that file.

import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ok as assert } from "node:assert/strict";
import { HARNESS_PLUGIN_DTS } from "../../src/plugin_loader/harness_plugin_dts.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const DEFINE_TOOL = pathToFileURL(join(REPO, "src/tools/define_tool.ts")).href;
const MESSAGES = pathToFileURL(join(REPO, "src/messages.ts")).href;

/**
 * One line per declaration: `Same<A, B>` is true only when A and B are the same type (the
 * same members, each as optional and as readonly, of the same types).
 */
const COMPARISON = `
import type * as Declared from "./harness_plugin.d.ts";
import type * as Real from "${DEFINE_TOOL}";
import type { ToolErrorType } from "${MESSAGES}";

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

// Three parts of the context are left out of the declarations, on purpose:
// - ctx.search (the host's ripgrep and fd) is given to the built-in grep_search and glob only,
//   and ctx.jobs (background commands) to the built-in run_command and job tools only;
// - of ctx.commands, plugins are told what says how commands run; the rest serves run_command;
// - ctx.config (web_search's engine) is given to built-in tools with a grant of their own only.
export const toolContext: Same<
  Omit<Declared.ToolContext, "commands">,
  Omit<Real.ToolContext, "commands" | "search" | "jobs" | "config">
> = true;
export const commands: Same<
  Declared.ToolContext["commands"],
  Pick<Real.CommandRunner, "confined" | "summary" | "explain">
> = true;
export const spawnOptions: Same<Declared.SpawnOptions, Real.SpawnOptions> = true;
export const toolOutput: Same<Declared.ToolOutput, Real.ToolOutput> = true;
export const toolPermissions: Same<Declared.ToolPermissions, Real.ToolPermissions> = true;
export const riskLevel: Same<Declared.RiskLevel, Real.RiskLevel> = true;
// What a tool may throw, and what the harness sets itself (limit_reached, cancelled, ...).
export const errorTypes: Same<
  Declared.ToolErrorType,
  Exclude<ToolErrorType, "none" | "tool_error" | "repeated_call">
> = true;
export const toolError: Same<Declared.ToolError["type"], Real.ToolError["type"]> = true;
`;

Deno.test("HARNESS_PLUGIN_DTS declares the plugin contract as define_tool.ts does", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "harness_plugin.d.ts"), HARNESS_PLUGIN_DTS);
  await Deno.writeTextFile(join(dir.path, "contract_check.ts"), COMPARISON);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--config", join(REPO, "deno.json"), "contract_check.ts"],
    cwd: dir.path,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const errors = new TextDecoder().decode(output.stderr);
  assert(
    output.success,
    `harness_plugin_dts.ts and define_tool.ts differ where a line below says "true" is not ` +
      `assignable to "false": change both alike\n${errors}`,
  );
});
