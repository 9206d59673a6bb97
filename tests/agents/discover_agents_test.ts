// discoverAgents() on real layouts (clio's .claude/ and .codex/, opencode's singular agent/)
// copied into temp workspaces: trust, precedence, and one line per file that cannot be read.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverAgents } from "../../src/agents/discover_agents.ts";
import { agentFolders } from "../../src/agents/agent_folders.ts";
import { realFile } from "../helpers/real_files.ts";

const trustAll = (files: readonly string[]) => Promise.resolve({ load: files, untrusted: "" });

/** A workspace holding a copy of a real project's layout, in a repository. */
function workspace(...layouts: string[]): string {
  const dir = Deno.makeTempDirSync({ prefix: "agents_" });
  mkdirSync(join(dir, ".git"));
  for (const layout of layouts) cpSync(realFile(`places/${layout}`), dir, { recursive: true });
  return dir;
}

Deno.test("discoverAgents() reads a real project's .claude/agents, .codex/agents with config.toml, and opencode's agent/", async () => {
  const cwd = workspace("clio", "opencode");
  const found = await discoverAgents({ cwd, trusted: trustAll });
  const names = found.agents.map((agent) => `${agent.name}:${agent.format}`);
  assertEquals(names, [
    "bug-detector:claude",
    "code-quality-reviewer:codex",
    "coder:claude",
    "docs:opencode",
    "duplicate-pr:opencode",
    "explorer:codex",
    "performance-review:codex",
    "reviewer:codex",
    "security-reviewer:codex",
  ]);
  assertEquals(found.skipped, []);
  const explorer = found.agents.find((agent) => agent.name === "explorer")!;
  assert(explorer.file.endsWith("custom-explorer.toml"));
  assertEquals(explorer.description, "Fast codebase explorer for read-heavy tasks.");
});

Deno.test("discoverAgents() loads project agents only when trusted, and says so per file", async () => {
  const cwd = workspace("opencode");
  const home = Deno.makeTempDirSync();
  mkdirSync(join(home, ".gemini", "agents"), { recursive: true });
  writeFileSync(join(home, ".gemini", "agents", "mine.md"), "---\ndescription: Mine\n---\nDo.");
  const found = await discoverAgents({ cwd, home });
  assertEquals(found.agents.map((agent) => agent.name), ["mine"]);
  assertEquals(found.skipped.length, 2);
  assert(found.skipped.every((skip) => skip.reason.includes("trusted folder")));
  const asked: string[] = [];
  const partly = await discoverAgents({
    cwd,
    home,
    trusted: (files) => {
      asked.push(...files);
      return Promise.resolve({
        load: files.filter((f) => f.endsWith("docs.md")),
        untrusted: 'untrusted: run "harness" here and answer the trust prompt',
      });
    },
  });
  assertEquals(asked.length, 2);
  assertEquals(partly.agents.map((agent) => agent.name), ["docs", "mine"]);
  assert(partly.skipped[0]!.reason.startsWith("untrusted"));
});

Deno.test("discoverAgents(): the project's agent wins over the user's of the same name", async () => {
  const cwd = workspace();
  const home = Deno.makeTempDirSync();
  mkdirSync(join(cwd, ".claude", "agents"), { recursive: true });
  writeFileSync(join(cwd, ".claude", "agents", "review.md"), "---\ndescription: Project's\n---\nP");
  mkdirSync(join(home, ".claude", "agents"), { recursive: true });
  writeFileSync(join(home, ".claude", "agents", "Review.md"), "---\ndescription: User's\n---\nU");
  const found = await discoverAgents({ cwd, home, trusted: trustAll });
  assertEquals(found.agents.map((agent) => agent.description), ["Project's"]);
  assert(found.skipped[0]!.file.endsWith("Review.md"));
  assertEquals(
    found.skipped[0]!.reason,
    `"Review" is defined first in ${join(cwd, ".claude", "agents", "review.md")}`,
  );
});

Deno.test("discoverAgents() names each file it cannot read once, with the reason, and loads the rest", async () => {
  const cwd = workspace("clio");
  const agents = join(cwd, ".claude", "agents");
  writeFileSync(join(agents, "binary.md"), new Uint8Array([0xff, 0xfe, 0x00, 0x41]));
  writeFileSync(join(agents, "huge.md"), `---\ndescription: big\n---\n${"x".repeat(300_000)}`);
  mkdirSync(join(agents, "folder.md"));
  writeFileSync(join(cwd, ".codex", "agents", "broken.toml"), 'name = "broken\n');
  const found = await discoverAgents({ cwd, trusted: trustAll });
  const reasons = Object.fromEntries(
    found.skipped.map((skip) => [skip.file.slice(cwd.length + 1), skip.reason]),
  );
  assertEquals(reasons[".claude/agents/binary.md"], "it is not UTF-8 text");
  assertEquals(reasons[".claude/agents/huge.md"], "it is over 256 KiB");
  assert(reasons[".codex/agents/broken.toml"]?.startsWith("its TOML cannot be read"));
  assertEquals(found.skipped.length, 3);
  assertEquals(found.agents.length, 7);
});

Deno.test("discoverAgents() names a broken config.toml and an [agents.NAME] without its file", async () => {
  const cwd = workspace();
  mkdirSync(join(cwd, ".codex", "agents"), { recursive: true });
  writeFileSync(join(cwd, ".codex", "config.toml"), '[agents.lost]\ndescription = "Lost"\n');
  writeFileSync(
    join(cwd, ".codex", "agents", "solo.toml"),
    'name = "solo"\ndescription = "Alone"\ndeveloper_instructions = "Work."\n',
  );
  const found = await discoverAgents({ cwd, trusted: trustAll });
  assertEquals(found.agents.map((agent) => agent.name), ["solo"]);
  assertEquals(found.skipped, [{
    file: join(cwd, ".codex", "config.toml"),
    reason: '[agents.lost] has no "config_file": name its role file',
  }]);
  writeFileSync(join(cwd, ".codex", "config.toml"), "[agents\n");
  const broken = await discoverAgents({ cwd, trusted: trustAll });
  assert(broken.skipped[0]!.reason.startsWith("its TOML cannot be read"));
  assertEquals(broken.agents.map((agent) => agent.name), ["solo"]);
});

Deno.test("agentFolders() looks from the repository root down to the workspace and in the user's folders", () => {
  const root = workspace();
  const cwd = join(root, "packages", "app");
  mkdirSync(cwd, { recursive: true });
  const folders = agentFolders({ cwd, home: "/h", configDir: "/h/.config/harness" });
  const dirs = folders.map((folder) => folder.dir);
  assert(
    dirs.indexOf(join(cwd, ".claude", "agents")) < dirs.indexOf(join(root, ".claude", "agents")),
  );
  assert(dirs.includes(join(root, ".opencode", "agent")));
  assert(dirs.includes("/h/.config/harness/agents"));
  assert(dirs.includes("/h/.config/opencode/agents"));
  assertEquals(folders.filter((f) => f.scope === "user")[0]?.format, "harness");
});
