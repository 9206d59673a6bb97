// parseMarkdownAgent(), parseCodexAgent() and codexAgentEntries() on real agent files of the
// four formats (tests/fixtures/real_files), one tolerance per test.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  type AgentDefinition,
  type AgentFormat,
  codexAgentEntries,
  parseCodexAgent,
  parseMarkdownAgent,
} from "../../src/agents/agent_definition.ts";
import { agentKey } from "../../src/agents/agent_folders.ts";
import { realFile } from "../helpers/real_files.ts";

function markdown(fixture: string, format: AgentFormat = "claude"): AgentDefinition {
  const file = realFile(fixture);
  const parsed = parseMarkdownAgent(Deno.readTextFileSync(file), { file, format, scope: "user" });
  if (!("agent" in parsed)) throw new Error(`${fixture}: ${parsed.skip}`);
  return parsed.agent;
}

Deno.test("parseMarkdownAgent() loads an agent whose front matter is not valid YAML, with a note", () => {
  const agent = markdown(
    "agents/claude-plugins-official/plugins/pr-review-toolkit/agents/silent-failure-hunter.md",
  );
  assertEquals(agent.name, "silent-failure-hunter");
  assert(agent.description.startsWith("Use this agent when reviewing code changes"));
  assert(agent.notes.some((note) => note.includes("not valid YAML")), agent.notes.join());
  assert(agent.instructions.length > 100);
});

Deno.test("parseMarkdownAgent() reads tools as written: comma string, list, mcp__ names, patterns", () => {
  assertEquals(
    markdown("agents/claude-plugins-official/plugins/hookify/agents/conversation-analyzer.md")
      .tools,
    ["Read", "Grep"],
  );
  assertEquals(
    markdown("agents/agents/plugins/meigen-ai-design/agents/image-generator.md").tools,
    ["mcp__meigen__generate_image"],
  );
  const parsed = parseMarkdownAgent(
    "---\nname: committer\ndescription: Commits\ntools: Read Bash(git add:*) Bash(git commit:*)\n" +
      "disallowedTools: WebFetch\n---\nCommit.",
    { file: "/a.md", format: "claude", scope: "user" },
  );
  assert("agent" in parsed);
  assertEquals(parsed.agent.tools, ["Read", "Bash(git add:*)", "Bash(git commit:*)"]);
  assertEquals(parsed.agent.disallowedTools, ["WebFetch"]);
});

Deno.test("parseMarkdownAgent() takes `tools: *` as every tool", () => {
  const agent = markdown(
    "agents/claude-code-templates/cli-tool/components/agents/data-ai/monday-bug-fixer.md",
  );
  assertEquals(agent.tools, undefined);
});

Deno.test("parseMarkdownAgent() reads opencode's tools map and names the agent after its file", () => {
  const agent = markdown("places/opencode/.opencode/agent/duplicate-pr.md", "opencode");
  assertEquals(agent.name, "duplicate-pr");
  assertEquals(agent.tools, ["github-pr-search"]);
  assert(agent.description.startsWith("You are a duplicate PR detection agent"));
  assert(agent.notes.some((note) => note.includes("first line")));
  assertEquals([agent.fields.mode, agent.fields.hidden], ["primary", true]);
  const docs = markdown("places/opencode/.opencode/agent/docs.md", "opencode");
  assertEquals([docs.name, docs.description], ["docs", "ALWAYS use this when writing docs"]);
});

Deno.test("parseMarkdownAgent() of a file without front matter: name from the file, first heading as description", () => {
  const agent = markdown(
    "agents/claude-plugins-official/plugins/skill-creator/skills/skill-creator/agents/grader.md",
  );
  assertEquals([agent.name, agent.description], ["grader", "Grader Agent"]);
});

Deno.test("parseMarkdownAgent() keeps names with spaces and underscores; agentKey() matches them", () => {
  const agent = markdown(
    "agents/claude-code-templates/cli-tool/components/agents/documentation/microsoft_learn_contributor.md",
  );
  assertEquals(agent.name, "microsoft_learn_contributor");
  assertEquals(agentKey(agent.name), agentKey("Microsoft Learn Contributor"));
});

Deno.test("parseMarkdownAgent() skips only what has no usable name or description, saying why", () => {
  const source = {
    file: "/x/.claude/agents/empty.md",
    format: "claude" as const,
    scope: "user" as const,
  };
  assertEquals(parseMarkdownAgent("", source), { skip: "it is empty" });
  const noDescription = parseMarkdownAgent("---\nname: quiet\n---\n", source);
  assert("skip" in noDescription && noDescription.skip.includes('"description:"'));
  const badName = parseMarkdownAgent('---\nname: "a\\u0007b"\ndescription: d\n---\n', source);
  assert("skip" in badName && badName.skip.includes("control characters"));
});

Deno.test("parseMarkdownAgent() reads a Gemini CLI agent", () => {
  const agent = markdown(
    "agents/gemini-cli/tools/gemini-cli-bot/.gemini/agents/WORKER.md",
    "gemini",
  );
  assertEquals(agent.name, "worker");
  assert(agent.instructions.startsWith("# Worker Subagent"));
});

Deno.test("parseCodexAgent() reads a standalone Codex agent TOML file", () => {
  const file = realFile(
    "agents/awesome-codex-subagents/categories/01-core-development/api-designer.toml",
  );
  const parsed = parseCodexAgent(Deno.readTextFileSync(file), {
    file,
    format: "codex",
    scope: "user",
  });
  assert("agent" in parsed);
  assertEquals([parsed.agent.name, parsed.agent.model], ["api-designer", "gpt-5.4"]);
  assert(parsed.agent.instructions.startsWith("Design APIs as long-lived contracts"));
  assertEquals(parsed.agent.fields.sandbox_mode, "read-only");
});

Deno.test("codexAgentEntries() and parseCodexAgent(): the description lives in config.toml, the file starts with a BOM", () => {
  const config = realFile("places/clio/.codex/config.toml");
  const entries = codexAgentEntries(Deno.readTextFileSync(config), config);
  assert(Array.isArray(entries));
  const explorer = entries.find((entry) => entry.name === "explorer")!;
  assert(explorer.configFile!.endsWith("/.codex/agents/custom-explorer.toml"));
  const file = realFile("places/clio/.codex/agents/custom-explorer.toml");
  const bytes = Deno.readFileSync(file);
  assertEquals([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf]);
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  const parsed = parseCodexAgent(text, { file, format: "codex", scope: "project" }, explorer);
  assert("agent" in parsed);
  assertEquals(parsed.agent.name, "explorer");
  assertEquals(parsed.agent.description, "Fast codebase explorer for read-heavy tasks.");
  assertEquals(parsed.agent.instructions, parsed.agent.description);
  assertEquals(parsed.agent.fields.sandbox_mode, "read-only");
});

Deno.test("parseCodexAgent() says what is missing or broken", () => {
  const source = {
    file: "/c/.codex/agents/r.toml",
    format: "codex" as const,
    scope: "user" as const,
  };
  const broken = parseCodexAgent("name = ", source);
  assert("skip" in broken && broken.skip.startsWith("its TOML cannot be read"));
  const bare = parseCodexAgent('developer_instructions = "x"', source);
  assert("skip" in bare && bare.skip.includes("[agents.r]"));
  const bad = parseCodexAgent('description = "d"\nname = "a\\u0000b"', source);
  assert("skip" in bad && bad.skip.includes("control characters"));
});
