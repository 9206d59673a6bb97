// agentReach (issue 41): each format's tool names become harness's, forbidden tools come out,
// a tool pattern is noted (harness does not narrow by it), an approval mode asks at most for
// what the parent has, and a name harness does not know reaches childScope, which refuses it.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { agentReach } from "../../../src/sandbox/grants/agent_reach.ts";
import { childScope, describeLeftOut } from "../../../src/sandbox/grants/child_scope.ts";
import { emptyGrants } from "../../../src/sandbox/grants/grants.ts";

const OFFERED = [
  "read_file",
  "write_file",
  "edit_file",
  "run_command",
  "grep_search",
  "glob",
  "ls",
  "download_url",
  "add_task",
  "update_task",
  "list_tasks",
  "task",
  "gh__search",
];

Deno.test("agentReach() maps Claude Code, Gemini CLI, opencode and Codex tool names", () => {
  const cases: [string[], string[]][] = [
    [["Read", "Grep", "Glob", "Bash"], ["read_file", "grep_search", "glob", "run_command"]],
    [["read_file", "run_shell_command", "search_file_content", "replace"], [
      "read_file",
      "run_command",
      "grep_search",
      "edit_file",
    ]],
    [["read", "edit", "bash", "webfetch", "todowrite"], [
      "read_file",
      "edit_file",
      "run_command",
      "download_url",
      "add_task",
      "update_task",
    ]],
    [["shell", "apply_patch"], ["run_command", "edit_file", "write_file"]],
    [["mcp__gh__search", "Task", "WebSearch", "google_web_search"], [
      "gh__search",
      "task",
      "web_search",
    ]],
  ];
  for (const [written, expected] of cases) {
    const { reach } = agentReach({ name: "a", tools: written, fields: {} }, OFFERED);
    assertEquals(reach.tools, expected, written.join());
  }
});

Deno.test("agentReach() takes forbidden tools out, with or without a tool list", () => {
  const listed = agentReach(
    { name: "a", tools: ["Read", "Bash"], disallowedTools: ["Bash"], fields: {} },
    OFFERED,
  );
  assertEquals(listed.reach.tools, ["read_file"]);
  const all = agentReach({ name: "a", disallowedTools: ["Write", "Edit", "Bash"], fields: {} }, [
    "read_file",
    "write_file",
    "edit_file",
    "run_command",
  ]);
  assertEquals(all.reach.tools, ["read_file"]);
  assertEquals(agentReach({ name: "a", fields: {} }, OFFERED).reach.tools, undefined);
});

Deno.test("agentReach() notes a tool pattern it cannot narrow by", () => {
  const { reach, notes } = agentReach({ name: "a", tools: ["Bash(git:*)"], fields: {} }, OFFERED);
  assertEquals(reach.tools, ["run_command"]);
  assert(notes[0]?.startsWith('"Bash(git:*)" is read as run_command'), notes.join("\n"));
});

Deno.test("agentReach() reads approval modes and harness's read and write paths", () => {
  const bypass = agentReach({ name: "a", fields: { permissionMode: "bypassPermissions" } }, []);
  assertEquals(bypass.reach.autoApprove, true);
  const ask = agentReach({ name: "a", fields: { permissionMode: "default" } }, []);
  assertEquals(ask.reach.autoApprove, false);
  const paths = agentReach({ name: "a", fields: { read: ["src"], write: "docs" } }, []);
  assertEquals([paths.reach.read, paths.reach.write], [["src"], ["docs"]]);
});

Deno.test("agentReach() finds MCP tools whatever harness made of their names", () => {
  const offered = ["read_file", "prompt_to_asset__render", "prompt_to_asset__list", "gh__search"];
  const server = agentReach({ name: "a", tools: ["mcp__prompt-to-asset"], fields: {} }, offered);
  assertEquals(server.reach.tools, ["prompt_to_asset__render", "prompt_to_asset__list"]);
  const denied = agentReach(
    { name: "a", disallowedTools: ["mcp__Prompt-To-Asset__render"], fields: {} },
    offered,
  );
  assertEquals(denied.reach.tools, ["read_file", "prompt_to_asset__list", "gh__search"]);
});

Deno.test("an unknown tool name reaches childScope, which leaves it out by that name", () => {
  const { reach } = agentReach(
    { name: "nb", tools: ["Read", "NotebookEdit"], fields: {} },
    OFFERED,
  );
  const scope = childScope(
    { tools: OFFERED, grants: emptyGrants(), depth: 0, autoApprove: false },
    reach,
    { workspace: "/w", maxDepth: 1, known: new Set(OFFERED) },
  );
  assert(scope.ok);
  assertEquals(scope.value.tools, ["read_file"]);
  assert(describeLeftOut("nb", scope.value.leftOut)?.includes('"NotebookEdit"'));
});
