// Every real agent file of the corpus (tests/fixtures/real_files: agents/ and the agent files of
// places/) loads as an agent with its own agent's reader, with a name, a description and
// instructions; none is skipped.

import { ok as assert } from "node:assert/strict";
import {
  codexAgentEntries,
  type CodexAgentEntry,
  parseCodexAgent,
  parseMarkdownAgent,
} from "../../src/agents/agent_definition.ts";
import { realFile, realFiles } from "../helpers/real_files.ts";

const AGENT_FILE = /\/agents?\/[^/]+\.(md|toml)$|^agents\/.*\.(md|toml)$/;

Deno.test("parseMarkdownAgent() and parseCodexAgent() load every real agent file", () => {
  const rows = realFiles().filter((row) =>
    (row.kind === "agents" || row.kind === "places") && AGENT_FILE.test(row.fixture) &&
    !row.fixture.includes("/skills/")
  );
  assert(rows.length >= 20, `${rows.length} agent files`);
  const configs = realFiles().filter((row) => row.fixture.endsWith(".codex/config.toml"));
  const entries = new Map<string, CodexAgentEntry>();
  for (const row of configs) {
    const file = realFile(row.fixture);
    const found = codexAgentEntries(Deno.readTextFileSync(file), file);
    assert(Array.isArray(found), row.fixture);
    for (const entry of found) entries.set(entry.configFile!, entry);
  }
  for (const row of rows) {
    const file = realFile(row.fixture);
    const text = Deno.readTextFileSync(file);
    const scope = "project" as const;
    const parsed = file.endsWith(".toml")
      ? parseCodexAgent(text, { file, format: "codex", scope }, entries.get(file))
      : parseMarkdownAgent(text, { file, format: "claude", scope });
    assert("agent" in parsed, `${row.fixture}: ${"skip" in parsed ? parsed.skip : ""}`);
    const { agent } = parsed;
    assert(agent.name && agent.description && agent.instructions, row.fixture);
  }
});
