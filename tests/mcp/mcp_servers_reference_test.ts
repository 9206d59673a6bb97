// The MCP client against the protocol's reference servers from npm, run by Deno:
// @modelcontextprotocol/server-everything over stdio, Streamable HTTP and the older SSE
// transport, and @modelcontextprotocol/server-filesystem over stdio.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";
import { McpServers } from "../../src/mcp/mcp_servers.ts";
import { McpTools } from "../../src/mcp/mcp_tools.ts";
import type { McpServerConfig } from "../../src/config/mcp_config.ts";
import { type ToolsByName, toolsByName } from "../helpers/tools_by_name.ts";
import { DENO_READ } from "../helpers/deno_in_sandbox.ts";

const DENO = Deno.execPath();
const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";
// --no-config: the servers' dependencies stay out of this project's lock file.
const RUN = ["run", "-A", "--no-config", "--no-prompt"];
const state = {};

// Fetch the servers' packages with this process's environment (a proxy's CA certificate, if
// any): harness starts a stdio server with only the MCP SDK's default variables, so a first
// download from inside the server process can fail where this one succeeds.
await new Deno.Command(DENO, {
  args: ["cache", "--no-config", EVERYTHING, FILESYSTEM],
  stdout: "null",
  stderr: "null",
}).output();

async function open(
  servers: Record<string, McpServerConfig>,
  progress?: (t: string | null) => void,
) {
  const grants = emptyGrants();
  grants.allow.run = [DENO];
  grants.allow.net = ["127.0.0.1"];
  const notices: string[] = [];
  const mcp = new McpServers(servers, {
    grants,
    cwd: Deno.cwd(),
    notice: (line) => notices.push(line),
    connectTimeoutMs: 60_000,
  });
  const runner = toolsByName(
    new McpTools(mcp, {
      readyWaitMs: 90_000,
      ...(progress ? { progress: (_name: string, text: string | null) => progress(text) } : {}),
    }),
  );
  mcp.start();
  await runner.ready();
  assertEquals(notices, []);
  return { runner, mcp, [Symbol.asyncDispose]: () => runner.close() };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts server-everything in an HTTP mode and waits until it listens. */
async function everythingOverHttp(mode: "streamableHttp" | "sse") {
  const port = freePort();
  const child = new Deno.Command(DENO, {
    args: [...RUN, EVERYTHING, mode],
    env: { PORT: String(port) },
    stdout: "null",
    stderr: "null",
  }).spawn();
  for (let i = 0; i < 600; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    port,
    async [Symbol.asyncDispose]() {
      child.kill();
      await child.status;
    },
  };
}

async function checkEverything(runner: ToolsByName, prefix: string) {
  const names = runner.list().map((t) => t.name);
  assert(names.includes(`${prefix}__echo`), names.join());
  assertEquals(runner.list().find((t) => t.name === `${prefix}__echo`)?.risk, "safe");
  const echo = await runner.run(`${prefix}__echo`, { message: "hi" }, { state });
  assertEquals(echo.result.data, "Echo: hi");
}

Deno.test("server-everything over stdio: echo, structured content, images, resources, progress", async () => {
  const lines: (string | null)[] = [];
  await using t = await open(
    {
      everything: {
        command: DENO,
        args: [...RUN, EVERYTHING, "stdio"],
        sandbox: { read: DENO_READ },
      },
    },
    (text) => lines.push(text),
  );
  await checkEverything(t.runner, "everything");
  const weather = await t.runner.run("everything__get-structured-content", {
    location: "Chicago",
  }, { state });
  assertEquals(JSON.parse(weather.result.data!).conditions, "Light rain / drizzle");
  const image = await t.runner.run("everything__get-tiny-image", {}, { state });
  match(image.result.data!, /\[image image\/png, [\d.]+ [KB ]+: not shown to the model\]/);
  const resource = await t.runner.run("everything__get-resource-reference", {
    resourceType: "Text",
    resourceId: 1,
  }, { state });
  assert(resource.result.success, JSON.stringify(resource.result));
  assert(!resource.result.data!.includes("[resource "), resource.result.data!);
  lines.length = 0;
  const long = await t.runner.run("everything__trigger-long-running-operation", {
    duration: 1,
    steps: 3,
  }, { state });
  assert(long.result.success, JSON.stringify(long.result));
  // Progress notifications race the result; the last may come after it and be dropped.
  assert(lines.filter((l) => l !== null).length >= 1, JSON.stringify(lines));
  assertEquals(lines.at(-1), null);
  match(String(lines[0]), /everything__trigger-long-running-operation 1\/3/);
  const invalid = await t.runner.validate("everything__get-sum", { a: "one" });
  assert(!invalid.ok);
});

Deno.test("server-everything over Streamable HTTP", async () => {
  await using server = await everythingOverHttp("streamableHttp");
  await using t = await open({ web: { url: `http://127.0.0.1:${server.port}/mcp` } });
  await checkEverything(t.runner, "web");
});

Deno.test("an SSE-only server is reached through the fallback from Streamable HTTP", async () => {
  await using server = await everythingOverHttp("sse");
  await using t = await open({ old: { url: `http://127.0.0.1:${server.port}/sse` } });
  await checkEverything(t.runner, "old");
});

Deno.test("server-filesystem over stdio reads a file inside its root", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${root}/notes.txt`, "alpha\nbeta\n");
    await using t = await open({
      fs: {
        command: DENO,
        args: [...RUN, FILESYSTEM, root],
        sandbox: { read: [...DENO_READ, root] },
      },
    });
    const tools = t.runner.list();
    assertEquals(tools.find((tool) => tool.name === "fs__read_text_file")?.risk, "safe");
    assertEquals(tools.find((tool) => tool.name === "fs__write_file")?.risk, "high");
    const read = await t.runner.run("fs__read_text_file", { path: `${root}/notes.txt` }, {
      state,
    });
    assertEquals(read.result.data, "alpha\nbeta\n");
    const outside = await t.runner.run("fs__read_text_file", { path: "/etc/hostname" }, {
      state,
    });
    assertEquals(outside.result.success, false);
    assertEquals(outside.result.error_type, "tool_error");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
