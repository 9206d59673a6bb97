// Real agent files (tests/fixtures/real_files/agents, provenance in SOURCES) read by src/agents
// and narrowed by agentReach and childScope (issue 41): every one can start a child; the tools
// they name from Claude Code, opencode and MCP map to harness's, and those harness lacks are
// left out by name, never turned into something else.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCodexAgent, parseMarkdownAgent } from "../../../src/agents/agent_definition.ts";
import { agentReach } from "../../../src/sandbox/grants/agent_reach.ts";
import { childScope, describeLeftOut } from "../../../src/sandbox/grants/child_scope.ts";
import { emptyGrants } from "../../../src/sandbox/grants/grants.ts";

const ROOT = fileURLToPath(new URL("../../fixtures/real_files/agents/", import.meta.url));
const BUILT_INS = [
  "read_file",
  "write_file",
  "edit_file",
  "insert_lines",
  "replace_lines",
  "run_command",
  "grep_search",
  "glob",
  "ls",
  "get_file_tree",
  "download_url",
  "web_search",
  "add_task",
  "update_task",
  "list_tasks",
  "task",
];

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await files(path));
    else if (/\.(md|toml)$/.test(entry.name)) out.push(path);
  }
  return out.sort();
}

async function startChild(file: string) {
  const text = await Deno.readTextFile(file);
  const source = {
    file,
    format: file.endsWith(".toml") ? "codex" as const : "claude" as const,
    scope: "project" as const,
  };
  const parsed = file.endsWith(".toml")
    ? parseCodexAgent(text, source)
    : parseMarkdownAgent(text, source);
  if (!("agent" in parsed)) throw new Error(`${file}: ${parsed.skip}`);
  const { reach } = agentReach(parsed.agent, BUILT_INS);
  const parent = { tools: BUILT_INS, grants: emptyGrants(), depth: 0, autoApprove: false };
  return childScope(parent, reach, { workspace: "/w", maxDepth: 1, known: new Set(BUILT_INS) });
}

Deno.test("every real agent file starts a child with only tools harness has", async () => {
  const all = await files(ROOT);
  assert(all.length >= 15, `${all.length} files`);
  for (const file of all) {
    const scope = await startChild(file);
    assert(scope.ok, file);
    assert(scope.value.tools.every((tool) => BUILT_INS.includes(tool)), file);
    assert(!scope.value.tools.includes("task"), `${file}: task past max_agent_depth`);
  }
});

Deno.test("Claude Code's code-explorer gets harness's tools and runs without the rest", async () => {
  const scope = await startChild(
    join(ROOT, "claude-plugins-official/plugins/feature-dev/agents/code-explorer.md"),
  );
  assert(scope.ok);
  assertEquals(scope.value.tools, [
    "read_file",
    "grep_search",
    "glob",
    "ls",
    "download_url",
    "web_search",
    "add_task",
    "update_task",
  ]);
  const line = describeLeftOut("code-explorer", scope.value.leftOut) ?? "";
  for (const name of ["NotebookRead", "KillShell", "BashOutput"]) {
    assert(line.includes(`"${name}" (harness has no such tool)`), line);
  }
});
