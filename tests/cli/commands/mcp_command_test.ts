// `harness mcp add|list|remove|import` through the real CLI: they edit the user's
// config.jsonc (keeping its comments) and list servers by starting them under the grants.

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { parse } from "jsonc-parser";
import { cliSandbox } from "../../helpers/run_cli.ts";
import { realFile } from "../../helpers/real_files.ts";
import { DENO_READ } from "../../helpers/deno_in_sandbox.ts";

const FIXTURE = new URL("../../fixtures/mcp/misbehaving_server.ts", import.meta.url).pathname;
const DENO = Deno.execPath();

function configFile(home: string): string {
  return `${home}/.config/harness/config.jsonc`;
}

Deno.test("harness mcp add writes a stdio server into config.jsonc and keeps its comments", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(configFile(sandbox.home), '{\n  // my model\n  "model": "qwen3"\n}\n');
  const out = await sandbox.run([
    "mcp",
    "add",
    "bad",
    "--env",
    "MODE=normal",
    "--",
    DENO,
    "run",
    "-A",
    "--no-prompt",
    FIXTURE,
  ]);
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /Added MCP server "bad"/);
  match(out.stdout, new RegExp(`--allow-run=${DENO}`));
  const text = await Deno.readTextFile(configFile(sandbox.home));
  match(text, /\/\/ my model/);
  assertEquals(parse(text).mcp_servers.bad, {
    command: DENO,
    args: ["run", "-A", "--no-prompt", FIXTURE],
    env: { MODE: "normal" },
  });
  const again = await sandbox.run(["mcp", "add", "bad", "--", "x"]);
  assertEquals(again.code, 2);
  match(again.stderr, /already configured.*harness mcp remove bad/);
});

Deno.test("harness mcp list starts the servers the grants allow and shows status and tool count", async () => {
  await using sandbox = await cliSandbox();
  assertEquals(
    (await sandbox.run(["mcp", "add", "bad", "--", DENO, "run", "-A", "--no-prompt", FIXTURE]))
      .code,
    0,
  );
  assertEquals(
    (await sandbox.run(["mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp"])).code,
    0,
  );
  const blocked = await sandbox.run(["mcp", "list"]);
  assertEquals(blocked.code, 0, blocked.stderr);
  match(blocked.stdout, /bad {2}blocked/);
  match(blocked.stdout, new RegExp(`--allow-run=${DENO}`));
  // The stdio server runs in the command sandbox of these flags: it must read Deno and the repo.
  const listed = await sandbox.run([
    "mcp",
    "list",
    `--allow-run=${DENO}`,
    "--allow-net=127.0.0.1",
    `--allow-read=.,${DENO_READ.join(",")}`,
    "--allow-env=DENO_DIR",
  ]);
  match(listed.stdout, /bad {2}ready in [\d.]+ s {2}10 tools/);
  match(listed.stdout, /web {2}failed/);
  match(listed.stdout, /Cannot connect to MCP server "web"/);
});

Deno.test("harness mcp remove takes a server out and names the configured ones when unknown", async () => {
  await using sandbox = await cliSandbox();
  await sandbox.run(["mcp", "add", "one", "--url", "https://example.com/mcp"]);
  await sandbox.run(["mcp", "add", "two", "--url", "https://example.com/mcp2"]);
  const missing = await sandbox.run(["mcp", "remove", "three"]);
  assertEquals(missing.code, 2);
  match(missing.stderr, /No MCP server "three".*one, two/);
  const removed = await sandbox.run(["mcp", "remove", "one"]);
  assertEquals(removed.code, 0, removed.stderr);
  const servers = parse(await Deno.readTextFile(configFile(sandbox.home))).mcp_servers;
  assertEquals(Object.keys(servers), ["two"]);
});

Deno.test("harness mcp import copies a Claude Desktop mcpServers block unchanged", async () => {
  await using sandbox = await cliSandbox();
  const claude = {
    mcpServers: {
      filesystem: {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
      },
      github: {
        command: "docker",
        args: ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: "x" },
      },
      "my server": { command: "x" },
      broken: { args: ["no command"] },
    },
  };
  await Deno.writeTextFile(`${sandbox.cwd}/claude.json`, JSON.stringify(claude));
  const out = await sandbox.run(["mcp", "import", "claude.json"]);
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /Imported 3 MCP servers.*filesystem, github, my server/);
  match(out.stdout, /Skipped "broken": server "broken": expected "command"/);
  match(out.stdout, /--allow-run=npx,docker,x/);
  const servers = parse(await Deno.readTextFile(configFile(sandbox.home))).mcp_servers;
  assertEquals(servers.filesystem, claude.mcpServers.filesystem);
  assertEquals(servers.github, claude.mcpServers.github);
  // A run reads the imported file without complaint.
  const listed = await sandbox.run(["mcp", "list"]);
  assertEquals(listed.code, 0, listed.stderr);
});

Deno.test("harness mcp import reads a plugin's bare .mcp.json and VS Code's servers with inputs, naming placeholders", async () => {
  await using sandbox = await cliSandbox();
  const plugin = `${sandbox.cwd}/plugin`;
  await Deno.mkdir(plugin);
  await Deno.copyFile(
    realFile("mcp/claude-plugins-official/external_plugins/github/.mcp.json"),
    `${plugin}/.mcp.json`,
  );
  const bare = await sandbox.run(["mcp", "import", "plugin/.mcp.json"], {
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: "" },
  });
  assertEquals(bare.code, 0, bare.stderr);
  match(
    bare.stdout,
    /"github" reads \$GITHUB_PERSONAL_ACCESS_TOKEN \(not set now\) when it starts/,
  );
  await Deno.mkdir(`${sandbox.cwd}/.vscode`);
  await Deno.writeTextFile(
    `${sandbox.cwd}/.vscode/mcp.json`,
    `{
      // VS Code asks for the token
      "inputs": [{ "type": "promptString", "id": "pat", "description": "Token", "password": true }],
      "servers": { "docs": { "type": "stdio", "command": "node", "args": ["\${workspaceFolder}/s.js"], "env": { "T": "\${input:pat}" }, } },
    }`,
  );
  const vscode = await sandbox.run(["mcp", "import", ".vscode/mcp.json"]);
  assertEquals(vscode.code, 0, vscode.stderr);
  match(
    vscode.stdout,
    /"docs": \$\{input:pat\} \("Token"\) is asked by VS Code; harness reads it from \$PAT/,
  );
  const servers = parse(await Deno.readTextFile(configFile(sandbox.home))).mcp_servers;
  assertEquals(servers.github.headers, { Authorization: "Bearer ${GITHUB_PERSONAL_ACCESS_TOKEN}" });
  assertEquals(servers.docs, {
    command: "node",
    args: [`${Deno.realPathSync(sandbox.cwd)}/s.js`],
    env: { T: "${PAT}" },
  });
});
