// The risk level of each built-in tool, held in source: the tool list may come from the schema
// cache (a file other processes can write), and the approver decides from risk, so a built-in
// tool's risk never comes from there. tests/plugin_loader/builtin_risks_test.ts checks this table
// against plugins/*.ts.

import type { RiskLevel } from "../tools/define_tool.ts";

/** Risk of each tool in plugins/, by name. */
export const BUILTIN_RISKS: Readonly<Record<string, RiskLevel>> = {
  add_task: "safe",
  download_url: "medium",
  edit_file: "high",
  get_current_time: "safe",
  get_file_tree: "safe",
  get_working_directory: "safe",
  glob: "safe",
  grep_search: "low",
  insert_lines: "high",
  job_kill: "low",
  job_list: "safe",
  job_output: "safe",
  list_tasks: "safe",
  ls: "safe",
  read_file: "medium",
  replace_lines: "high",
  run_command: "high",
  task_complete: "safe",
  update_task: "safe",
  web_search: "low",
  write_file: "high",
};

/**
 * The risk of a built-in tool: the table's, or `high` for a name it lacks.
 *
 * @param name The tool's name (its file name in plugins/).
 * @returns Its risk level.
 *
 * @example
 * ```ts
 * import { builtinRisk } from "./builtin_risks.ts";
 * if (builtinRisk("run_command") !== "high" || builtinRisk("nope") !== "high") throw new Error();
 * ```
 */
export function builtinRisk(name: string): RiskLevel {
  return Object.hasOwn(BUILTIN_RISKS, name) ? BUILTIN_RISKS[name]! : "high";
}
