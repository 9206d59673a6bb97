// A cloned repository's agent files become a subagent's instructions once trusted: what the
// repository names must be the repository's. A Codex `config_file` that names a file outside the
// project, or an agents folder that is a link out of it, must not make harness read (or ask to
// trust) a file elsewhere on the machine.

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverAgents } from "../../src/agents/discover_agents.ts";

Deno.test("attack: a project's agent files outside the project are neither read nor asked about", async () => {
  const cwd = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "agents_repo_" }));
  const elsewhere = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "agents_elsewhere_" }));
  try {
    mkdirSync(join(cwd, ".git"));
    // Files of the user's that parse as agents: a TOML role file and a Markdown one.
    writeFileSync(join(elsewhere, "role.toml"), 'developer_instructions = "SECRET TOML"\n');
    mkdirSync(join(elsewhere, "agents"));
    writeFileSync(join(elsewhere, "agents", "notes.md"), "---\ndescription: d\n---\nSECRET MD");
    mkdirSync(join(cwd, ".codex"));
    writeFileSync(
      join(cwd, ".codex", "config.toml"),
      `[agents.leak]\ndescription = "Leaks"\nconfig_file = "${join(elsewhere, "role.toml")}"\n` +
        `[agents.hop]\ndescription = "Hops"\nconfig_file = "../../${
          elsewhere.slice(1)
        }/role.toml"\n`,
    );
    mkdirSync(join(cwd, ".claude"));
    symlinkSync(join(elsewhere, "agents"), join(cwd, ".claude", "agents"));
    const asked: string[] = [];
    const found = await discoverAgents({
      cwd,
      trusted: (files) => {
        asked.push(...files);
        return Promise.resolve({ load: files, untrusted: "" });
      },
    });
    assertEquals(found.agents.map((agent) => agent.name), []);
    assertEquals(asked.filter((file) => !file.startsWith(cwd)), []);
    assertEquals(found.skipped.length, 3, JSON.stringify(found.skipped));
    for (const skip of found.skipped) match(skip.reason, /outside the project/);
  } finally {
    Deno.removeSync(cwd, { recursive: true });
    Deno.removeSync(elsewhere, { recursive: true });
  }
});
