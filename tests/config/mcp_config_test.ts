// The mcp_servers setting: checked entry by entry, the project file adding to the user's.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { loadSettings, parseConfigText } from "../../src/config/settings.ts";
import { checkMcpServer } from "../../src/config/mcp_config.ts";

Deno.test("parseConfigText() accepts the mcpServers shapes users already have", async () => {
  const text = `{
    // stdio and HTTP
    "mcp_servers": {
      "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": { "A": "1" } },
      "web": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer x" }, "timeout_ms": 5000 },
    },
  }`;
  const parsed = await parseConfigText("c.jsonc", text);
  assert(parsed.ok);
  assertEquals(Object.keys(parsed.value.mcpServers ?? {}), ["fs", "web"]);
});

Deno.test("parseConfigText() names the server and the key of a bad entry", async () => {
  const parsed = await parseConfigText(
    "c.jsonc",
    '{ "mcp_servers": { "fs": { "comand": "npx" } } }',
  );
  assert(!parsed.ok);
  assert(JSON.stringify(parsed.error).includes('server \\"fs\\"'), JSON.stringify(parsed.error));
  assertEquals(checkMcpServer("my server", { command: "x" }), undefined);
  assertEquals(checkMcpServer("", { command: "x" })?.includes("1 to 48 characters"), true);
  assertEquals(checkMcpServer("w", { url: "ftp://x" })?.includes('"url"'), true);
  assertEquals(checkMcpServer("w", { command: "x", timeout_ms: -1 })?.includes("timeout_ms"), true);
});

Deno.test("loadSettings() adds the project's mcp_servers to the user's, the project winning by name", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/config/harness`, { recursive: true });
    await Deno.mkdir(`${root}/work/.harness`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/config/harness/config.jsonc`,
      JSON.stringify({ mcp_servers: { a: { command: "user-a" }, b: { command: "user-b" } } }),
    );
    await Deno.writeTextFile(
      `${root}/work/.harness/config.jsonc`,
      JSON.stringify({ mcp_servers: { b: { command: "project-b" } } }),
    );
    const env = (name: string) => name === "XDG_CONFIG_HOME" ? `${root}/config` : undefined;
    const written: string[] = [];
    const io = (answer: string | null) => ({
      write: (text: string) => void written.push(text),
      readLine: () => Promise.resolve(answer),
    });
    // Untrusted, the project's servers are ignored (they would run its commands).
    const untrusted = await loadSettings({}, { cwd: `${root}/work`, env, trust: { io: io(null) } });
    assert(untrusted.ok);
    assertEquals(untrusted.value.mcpServers, {
      a: { command: "user-a" },
      b: { command: "user-b" },
    });
    assert(written.join("").includes('"mcp_servers"'), written.join(""));
    // Trusted in the REPL, they add to the user's, the project winning by name.
    const settings = await loadSettings({}, {
      cwd: `${root}/work`,
      env,
      trust: { interactive: true, io: io("y") },
    });
    assert(settings.ok);
    assertEquals(settings.value.mcpServers, {
      a: { command: "user-a" },
      b: { command: "project-b" },
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
