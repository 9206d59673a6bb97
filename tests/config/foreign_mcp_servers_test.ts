// foreignMcpServers() and the placeholders of real MCP files (tests/fixtures/real_files/mcp):
// each layout and tolerance its own test, then every file of the corpus imported with no
// literal placeholder left for a server.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { foreignMcpServers, neededVariables } from "../../src/config/foreign_mcp_servers.ts";
import { fillPlaceholders } from "../../src/config/mcp_placeholders.ts";
import { checkMcpServer } from "../../src/config/mcp_config.ts";
import { realFile, realFiles } from "../helpers/real_files.ts";

const HOME = "/home/me";

function importFile(fixture: string) {
  const file = realFile(fixture);
  const text = Deno.readTextFileSync(file);
  const value = file.endsWith(".toml")
    ? parseToml(text)
    : parseJsonc(text, [], { allowTrailingComma: true });
  const found = foreignMcpServers(value, { file, home: HOME });
  if (!found) throw new Error(`${fixture}: no servers`);
  return { ...found, file };
}

Deno.test("foreignMcpServers() reads a plugin's .mcp.json that is a bare map of servers", () => {
  const { servers, layout } = importFile(
    "mcp/claude-plugins-official/external_plugins/firebase/.mcp.json",
  );
  assertEquals(layout, "bare map of servers");
  assertEquals(servers, {
    firebase: { command: "npx", args: ["-y", "firebase-tools@latest", "mcp"] },
  });
});

Deno.test("foreignMcpServers() resolves ${CLAUDE_PLUGIN_ROOT} to the plugin's folder", () => {
  const { servers, file } = importFile(
    "mcp/claude-plugins-official/external_plugins/discord/.mcp.json",
  );
  const root = file.replace(/\/\.mcp\.json$/, "");
  assertEquals(servers.discord!.args, ["run", "--cwd", root, "--shell=bun", "--silent", "start"]);
});

Deno.test("foreignMcpServers() keeps ${VAR} and ${VAR:-default} for the start, and names what a server reads", () => {
  const { servers } = importFile("mcp/claude-plugins-official/external_plugins/context7/.mcp.json");
  assertEquals(servers.context7!.headers, { Authorization: "${CONTEXT7_API_KEY:-}" });
  assertEquals(neededVariables(servers.context7!), []);
  const github = importFile("mcp/claude-plugins-official/external_plugins/github/.mcp.json");
  assertEquals(neededVariables(github.servers.github!), ["GITHUB_PERSONAL_ACCESS_TOKEN"]);
});

Deno.test("foreignMcpServers() reads VS Code's servers, resolves ${workspaceFolder} and names ${input:id}", () => {
  const { servers, file, layout } = importFile("mcp/vscode/.vscode/mcp.json");
  assertEquals(layout, "VS Code servers");
  const project = file.replace(/\/\.vscode\/mcp\.json$/, "");
  assertEquals(servers["vscode-playwright-mcp"], {
    command: "npm",
    args: ["run", "start-stdio"],
    cwd: `${project}/test/mcp`,
  });
  const withInputs = foreignMcpServers({
    inputs: [{
      type: "promptString",
      id: "github_token",
      description: "GitHub PAT",
      password: true,
    }],
    servers: { github: { command: "docker", env: { TOKEN: "${input:github_token}" } } },
  }, { file: "/p/.vscode/mcp.json", home: HOME })!;
  assertEquals(withInputs.servers.github!.env, { TOKEN: "${GITHUB_TOKEN}" });
  assertEquals(withInputs.notes.github, [
    '${input:github_token} ("GitHub PAT") is asked by VS Code; harness reads it from $GITHUB_TOKEN',
  ]);
});

Deno.test("foreignMcpServers() reads opencode's mcp key: remote, ${env:VAR}, trailing commas", () => {
  const { servers, layout } = importFile("mcp/opencode/.opencode/opencode.jsonc");
  assertEquals(layout, "opencode mcp");
  assertEquals(servers.linear, {
    url: "https://mcp.linear.app/mcp",
    headers: { Authorization: "Bearer ${LINEAR_API_KEY}" },
  });
  const local = foreignMcpServers({
    mcp: {
      x: { type: "local", command: ["uvx", "srv"], environment: { K: "{env:K}" }, enabled: false },
    },
  }, { file: "/p/opencode.json", home: HOME })!;
  assertEquals(local.servers.x, {
    command: "uvx",
    args: ["srv"],
    disabled: true,
    env: { K: "${K}" },
  });
});

Deno.test("foreignMcpServers() leaves unknown keys out and names them", () => {
  const examples = importFile(
    "mcp/claude-plugins-official/plugins/plugin-dev/skills/mcp-integration/examples/stdio-server.json",
  );
  assertEquals(Object.keys(examples.servers), ["filesystem", "database", "custom-tools"]);
  const copilot = importFile("mcp/awesome-copilot/mcp.json");
  assertEquals(copilot.notes["github-agentic-workflows"], ['left out "tools"']);
  assertEquals(copilot.servers["github-agentic-workflows"], {
    command: "gh",
    args: ["aw", "mcp-server"],
  });
});

Deno.test("foreignMcpServers() reads Codex's [mcp_servers.NAME] of config.toml", () => {
  const { servers } = importFile("places/clio/.codex/config.toml");
  assertEquals(servers.clio, { command: "clio", disabled: true });
  assertEquals(servers.dbhub!.command, "npx");
  const codex = foreignMcpServers({
    mcp_servers: {
      gh: { url: "https://api/mcp", bearer_token_env_var: "GH_TOKEN", tool_timeout_sec: 30 },
    },
  }, { file: "/h/.codex/config.toml", home: HOME })!;
  assertEquals(codex.servers.gh, {
    url: "https://api/mcp",
    headers: { Authorization: "Bearer ${GH_TOKEN}" },
    timeout_ms: 30000,
  });
});

Deno.test("fillPlaceholders() fills from the environment and names every placeholder it cannot", () => {
  const env = (name: string) => ({ SET: "v", EMPTY: "" } as Record<string, string>)[name];
  assertEquals(
    fillPlaceholders({ command: "x", args: ["${SET}", "${EMPTY:-d}", "${UNSET:-}"] }, env),
    { entry: { command: "x", args: ["v", "d", ""] } },
  );
  assertEquals(fillPlaceholders({ url: "https://h/${EMPTY}", headers: { A: "${input:x}" } }, env), {
    missing: [{ variable: "EMPTY", where: "url" }, { variable: "${input:x}", where: "headers.A" }],
  });
});

Deno.test("every real MCP file imports, each server valid or skipped with a reason, no literal placeholder left", () => {
  const rows = realFiles().filter((row) =>
    row.kind === "mcp" || row.fixture.endsWith(".codex/config.toml")
  );
  assert(rows.length >= 15, `${rows.length}`);
  let servers = 0;
  for (const row of rows) {
    const found = importFile(row.fixture);
    for (const [name, entry] of Object.entries(found.servers)) {
      servers++;
      const problem = checkMcpServer(name, entry);
      if (problem) {
        assert(problem.startsWith(`server "${name}": `), problem);
        continue;
      }
      const filled = fillPlaceholders(entry, () => "value");
      assert("entry" in filled, `${row.fixture} ${name}: ${JSON.stringify(filled)}`);
      assert(!/\$\{|\{env:/.test(JSON.stringify(filled.entry)), `${row.fixture} ${name}`);
      const empty = fillPlaceholders(entry, () => undefined);
      if (neededVariables(entry).length > 0) assert("missing" in empty, `${row.fixture} ${name}`);
    }
  }
  assert(servers >= 25, `${servers} servers`);
});
