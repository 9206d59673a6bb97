// MCP server entries with placeholders (`${VAR}`, `${VAR:-default}`): filled from the
// environment when the servers start; a server whose placeholder cannot be filled is not
// started and says which and where, so a literal `${...}` never reaches a server.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";
import { McpServers } from "../../src/mcp/mcp_servers.ts";
import { DENO_READ } from "../helpers/deno_in_sandbox.ts";

const FIXTURE = new URL("../fixtures/mcp/misbehaving_server.ts", import.meta.url).pathname;

Deno.test("McpServers does not start a server whose placeholder is not set, and names it once", async () => {
  const marker = join(await Deno.makeTempDir(), "started");
  const grants = emptyGrants();
  grants.allow.run = ["sh"];
  const notices: string[] = [];
  const mcp = new McpServers({
    gh: { command: "sh", args: ["-c", `touch ${marker}`], env: { TOKEN: "${GITHUB_TOKEN}" } },
  }, { grants, cwd: Deno.cwd(), notice: (line) => notices.push(line), env: () => undefined });
  mcp.start();
  mcp.start();
  await mcp.settled(5_000);
  await mcp.close();
  assertEquals(mcp.states()[0]?.status, "blocked");
  assertEquals(notices, [
    'MCP server "gh" not started: ${GITHUB_TOKEN} (env.TOKEN) is not set: set GITHUB_TOKEN in ' +
    "the environment harness starts in, or write the value into its entry",
  ]);
  assert(!(await Deno.stat(marker).then(() => true, () => false)));
});

Deno.test({
  name: "McpServers fills ${VAR} and ${VAR:-default} before a server starts",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const grants = emptyGrants();
    grants.allow.run = [Deno.execPath()];
    const notices: string[] = [];
    const env = (name: string) => ({ DENO_BIN: Deno.execPath() } as Record<string, string>)[name];
    const mcp = new McpServers({
      fixture: {
        command: "${DENO_BIN}",
        args: ["run", "-A", "--no-prompt", "${FIXTURE_PATH:-" + FIXTURE + "}"],
        sandbox: { read: DENO_READ },
      },
    }, { grants, cwd: Deno.cwd(), notice: (line) => notices.push(line), env });
    mcp.start();
    await mcp.settled(20_000);
    try {
      assertEquals(mcp.states()[0]?.status, "ready", notices.join("\n"));
    } finally {
      await mcp.close();
    }
  },
});
