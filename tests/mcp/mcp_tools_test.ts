// McpTools (the MCP servers' tools as entries of the tool set) against real MCP servers over stdio: the misbehaving fixture server
// (tests/fixtures/mcp/misbehaving_server.ts) and @modelcontextprotocol/server-everything.

import {
  deepStrictEqual as assertEquals,
  match as assertMatch,
  ok as assert,
} from "node:assert/strict";

function assertStringIncludes(text: string, part: string): void {
  assert(
    text.includes(part),
    `expected ${JSON.stringify(text)} to include ${JSON.stringify(part)}`,
  );
}
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";
import { McpServers } from "../../src/mcp/mcp_servers.ts";
import { McpTools } from "../../src/mcp/mcp_tools.ts";
import type { McpServerConfig } from "../../src/config/mcp_config.ts";
import { toolsByName } from "../helpers/tools_by_name.ts";
import { dirname, join } from "node:path";
import { DENO_READ } from "../helpers/deno_in_sandbox.ts";

const FIXTURE = new URL("../fixtures/mcp/misbehaving_server.ts", import.meta.url).pathname;
const DENO = Deno.execPath();

/** The fixture server, confined: it reads Deno and this repository, writes only its log. */
function fixture(env: Record<string, string> = {}, extra: Partial<McpServerConfig> = {}) {
  const write = env.CALL_LOG ? { write: [dirname(env.CALL_LOG)] } : {};
  return {
    command: DENO,
    args: ["run", "-A", "--no-prompt", FIXTURE],
    env,
    sandbox: { read: DENO_READ, ...write },
    ...extra,
  };
}

async function open(
  servers: Record<string, McpServerConfig>,
  options: { notices?: string[]; dataDir?: string; toolOutputLimit?: number } = {},
) {
  const grants = emptyGrants();
  grants.allow.run = [DENO];
  const mcp = new McpServers(servers, {
    grants,
    cwd: Deno.cwd(),
    notice: (line) => options.notices?.push(line),
    connectTimeoutMs: 20_000,
  });
  const runner = toolsByName(
    new McpTools(mcp, {
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.toolOutputLimit ? { toolOutputLimit: options.toolOutputLimit } : {}),
      readyWaitMs: 30_000,
    }),
  );
  mcp.start();
  await runner.ready();
  return { runner, mcp, [Symbol.asyncDispose]: () => runner.close() };
}

const state = {};

/** Waits until `check` holds (at most 5 s). */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100 && !await check(); i++) await new Promise((r) => setTimeout(r, 50));
}

Deno.test("McpTools lists a stdio server's tools as SERVER__tool with risk from annotations", async () => {
  await using t = await open({ bad: fixture() });
  const tools = t.runner.list();
  const echo = tools.find((tool) => tool.name === "bad__echo");
  assertEquals(echo?.risk, "safe");
  assertEquals(echo?.origin, "mcp");
  assertEquals(echo?.server, "bad");
  assertEquals(tools.find((tool) => tool.name === "bad__crash")?.risk, "high");
  assertEquals(tools.find((tool) => tool.name === "bad__hang")?.risk, "medium");
  const run = await t.runner.run("bad__echo", { text: "hi" }, { state });
  assertEquals(run.result.success, true);
  assertEquals(run.result.data, "echo: hi");
});

Deno.test("McpTools gives a hostile tool a safe name and a description without control codes", async () => {
  await using t = await open({ bad: fixture() });
  const hostile = t.runner.list().find((tool) => tool.name.startsWith("bad__hostile"));
  assertEquals(hostile?.name, "bad__hostile_name___2J");
  assert(
    !hostile!.description.includes("\x1b") && !hostile!.description.includes("\x07"),
    JSON.stringify(hostile!.description),
  );
  // The server still gets its own name for the call.
  const run = await t.runner.run(hostile!.name, {}, { state });
  assertStringIncludes(run.result.error_message ?? "", "Unknown tool hostile name!");
});

Deno.test("McpTools sanitises a server name other clients accept into the tool prefix", async () => {
  await using t = await open({ "my server.v2": fixture() });
  assert(t.runner.list().some((tool) => tool.name === "my_server_v2__echo"));
});

Deno.test("McpTools checks arguments against the tool's JSON Schema", async () => {
  await using t = await open({ bad: fixture() });
  const wrong = await t.runner.validate("bad__echo", { text: 3 });
  assert(!wrong.ok);
  assertStringIncludes(wrong.error.join(), "text");
  assert((await t.runner.validate("bad__echo", { text: "x" })).ok);
});

Deno.test("McpTools maps isError to a failed tool_error result and images to a note", async () => {
  await using t = await open({ bad: fixture() });
  const failed = await t.runner.run("bad__fail", {}, { state });
  assertEquals(failed.result.success, false);
  assertEquals(failed.result.error_type, "tool_error");
  assertEquals(failed.result.error_message, "the file is locked");
  const image = await t.runner.run("bad__image", {}, { state });
  assertEquals(image.result.data, "[image image/png, 8 B: not shown to the model]");
});

Deno.test("McpTools keeps an image result as a file the note names", async () => {
  const dataDir = await Deno.makeTempDir();
  // Readable by everyone, as an older harness or the user left it: harness closes it.
  if (Deno.build.os !== "windows") await Deno.chmod(dataDir, 0o755);
  try {
    await using t = await open({ bad: fixture() }, { dataDir });
    const image = await t.runner.run("bad__image", {}, { state });
    const saved = /saved to "([^"]+)"/.exec(image.result.data!)?.[1];
    assert(saved !== undefined, image.result.data!);
    assert(saved.endsWith(".png"));
    assertEquals([...await Deno.readFile(saved)].slice(1, 4), [80, 78, 71]); // "PNG"
    if (Deno.build.os !== "windows") {
      // Owner-only, as the cut outputs beside it.
      assertEquals((await Deno.stat(saved)).mode! & 0o777, 0o600);
      assertEquals((await Deno.stat(dirname(saved))).mode! & 0o777, 0o700);
      assertEquals((await Deno.stat(dataDir)).mode! & 0o777, 0o700);
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("McpTools caps a long result and saves the full output like built-in tools", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    await using t = await open({ bad: fixture() }, { dataDir, toolOutputLimit: 1000 });
    const run = await t.runner.run("bad__big", {}, { state });
    assert(run.result.data!.length <= 1000);
    const saved = run.result.metadata.truncated?.full_output_path;
    assert(saved !== undefined);
    assertEquals((await Deno.readTextFile(saved)).length, 200_000);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("McpTools names a saved answer only when it is one of the workspace's outputs", async () => {
  // Attack: the server sends the _meta key harness gives an answer it saved to a file, naming
  // a file of its choosing, so that the result's metadata (and fit_request) point there.
  const dataDir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dataDir, "tool_outputs"));
    const own = join(dataDir, "tool_outputs", "mcp-h-1.txt");
    await Deno.writeTextFile(own, "saved answer");
    await using t = await open({ h: fixture({ MODE: "heavy" }) }, { dataDir });
    const metadataFor = async (path: string) =>
      (await t.runner.run("h__forged_saved", { text: path }, { state })).result.metadata.truncated;
    const refused = { cut: 495, unit: "bytes", output_bytes: 500 };
    assertEquals(await metadataFor("/etc/passwd"), refused);
    assertEquals(await metadataFor(join(dataDir, "tool_outputs", "..", "x")), refused);
    assertEquals(await metadataFor(own), { ...refused, full_output_path: own, saved_bytes: 12 });
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("McpTools fails a call as data when the server crashes, and restarts it on next use", async () => {
  const notices: string[] = [];
  await using t = await open({ bad: fixture() }, { notices });
  const crashed = await t.runner.run("bad__crash", {}, { state });
  assertEquals(crashed.result.success, false);
  assertEquals(crashed.result.error_type, "internal_error");
  assertStringIncludes(crashed.result.error_message!, "panic: the crash tool was called");
  const again = await t.runner.run("bad__echo", { text: "back" }, { state });
  assertEquals(again.result.data, "echo: back");
  assertEquals(t.mcp.states()[0]?.status, "ready");
});

Deno.test("McpTools times out a hanging call with the server's timeout_ms and cancels it", async () => {
  const log = await Deno.makeTempFile();
  try {
    await using t = await open({ bad: fixture({ CALL_LOG: log }, { timeout_ms: 300 }) });
    const run = await t.runner.run("bad__hang", {}, { state });
    assertEquals(run.result.error_type, "timeout");
    assertStringIncludes(run.result.error_message!, "0.3 s");
    // The server still answers afterwards.
    assertEquals(
      (await t.runner.run("bad__echo", { text: "x" }, { state })).result.data,
      "echo: x",
    );
    await until(async () => (await Deno.readTextFile(log)).includes("notifications/cancelled"));
    assertStringIncludes(await Deno.readTextFile(log), "notifications/cancelled");
  } finally {
    await Deno.remove(log);
  }
});

Deno.test("McpTools lets tool_timeouts name an MCP tool", async () => {
  const grants = emptyGrants();
  grants.allow.run = [DENO];
  const mcp = new McpServers({ bad: fixture() }, { grants, cwd: Deno.cwd() });
  const runner = toolsByName(new McpTools(mcp, { timeouts: { bad__hang: 200 } }));
  try {
    mcp.start();
    await runner.ready();
    const run = await runner.run("bad__hang", {}, { state });
    assertEquals(run.result.error_type, "timeout");
    assertStringIncludes(run.result.error_message!, "0.2 s");
  } finally {
    await runner.close();
  }
});

Deno.test("McpTools cancels a running call on abort with notifications/cancelled", async () => {
  const log = await Deno.makeTempFile();
  try {
    await using t = await open({ bad: fixture({ CALL_LOG: log }) });
    const controller = new AbortController();
    const running = t.runner.run("bad__hang", {}, { state, signal: controller.signal });
    await until(async () => (await Deno.readTextFile(log)).includes("tools/call"));
    controller.abort();
    assertEquals((await running).result.error_type, "cancelled");
    await until(async () => (await Deno.readTextFile(log)).includes("notifications/cancelled"));
    assertMatch(await Deno.readTextFile(log), /notifications\/cancelled/);
  } finally {
    await Deno.remove(log);
  }
});

Deno.test("McpTools survives a malformed line from the server", async () => {
  await using t = await open({ bad: fixture() });
  const run = await t.runner.run("bad__garbage", {}, { state });
  assertEquals(run.result.data, "after garbage");
});

Deno.test("McpTools reports progress and follows tools/list_changed", async () => {
  const lines: (string | null)[] = [];
  const grants = emptyGrants();
  grants.allow.run = [DENO];
  const mcp = new McpServers({ bad: fixture() }, { grants, cwd: Deno.cwd() });
  const runner = toolsByName(
    new McpTools(mcp, {
      progress: (_name, text) => lines.push(text),
    }),
  );
  try {
    mcp.start();
    await runner.ready();
    const run = await runner.run("bad__progress", {}, { state });
    assertEquals(run.result.data, "progress done");
    // The SDK hands notifications to their handler a microtask later but drops a call's
    // progress handler at its answer, so the last step is lost when a loaded machine reads it
    // in the same chunk as the answer: the steps shown are the first ones, in order.
    const steps = [
      "bad__progress 1/3 step 1",
      "bad__progress 2/3 step 2",
      "bad__progress 3/3 step 3",
    ];
    assertEquals(lines.at(-1), null);
    assert(lines.length >= 3, JSON.stringify(lines));
    assertEquals(lines.slice(0, -1), steps.slice(0, lines.length - 1));
    assert(!runner.list().some((tool) => tool.name === "bad__added"));
    await runner.run("bad__change_tools", {}, { state });
    for (let i = 0; i < 50 && !runner.list().some((t) => t.name === "bad__added"); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert(runner.list().some((tool) => tool.name === "bad__added"));
  } finally {
    await runner.close();
  }
});

Deno.test("McpServers reports a server that exits at start with its stderr and what to do", async () => {
  const notices: string[] = [];
  await using t = await open({ bad: fixture({ MODE: "exit_init" }) }, { notices });
  assertEquals(t.mcp.states()[0]?.status, "failed");
  assertEquals(notices.length, 1);
  assertStringIncludes(notices[0]!, "missing API token");
  assertStringIncludes(notices[0]!, "harness mcp list");
  assertEquals(t.runner.list().length, 0);
});

Deno.test("McpServers says when a server's command does not exist", async () => {
  const notices: string[] = [];
  const grants = emptyGrants();
  grants.allow.run = true;
  const gone = { command: "no-such-mcp-server-xyz", sandbox: { read: [Deno.cwd()] } };
  const mcp = new McpServers({ gone }, {
    grants,
    cwd: Deno.cwd(),
    notice: (line) => notices.push(line),
  });
  mcp.start();
  await mcp.settled(10_000);
  assertEquals(mcp.states()[0]?.status, "failed");
  assertStringIncludes(notices[0]!, 'command "no-such-mcp-server-xyz" was not found');
  assertStringIncludes(notices[0]!, "harness mcp list");
  await mcp.close();
});

Deno.test("McpServers gives up on a server that never answers initialize", async () => {
  const notices: string[] = [];
  const grants = emptyGrants();
  grants.allow.run = [DENO];
  const mcp = new McpServers({ bad: fixture({ MODE: "hang_init" }) }, {
    grants,
    cwd: Deno.cwd(),
    notice: (line) => notices.push(line),
    connectTimeoutMs: 500,
  });
  mcp.start();
  await mcp.settled(10_000);
  assertEquals(mcp.states()[0]?.status, "failed");
  assertStringIncludes(notices[0]!, "initialize");
  await mcp.close();
});

Deno.test("McpServers.close() stops a server still starting instead of waiting for it", async () => {
  const grants = emptyGrants();
  grants.allow.run = [DENO];
  const mcp = new McpServers({ bad: fixture({ MODE: "hang_init" }) }, {
    grants,
    cwd: Deno.cwd(),
    connectTimeoutMs: 30_000,
  });
  mcp.start();
  await new Promise((r) => setTimeout(r, 500));
  const started = performance.now();
  await mcp.close();
  assert(performance.now() - started < 5_000, `close took ${performance.now() - started} ms`);
  assertEquals(mcp.states()[0]?.status, "stopped");
});

Deno.test("McpServers does not start a stdio server whose command --allow-run does not grant", async () => {
  const notices: string[] = [];
  const mcp = new McpServers({ bad: fixture() }, {
    grants: emptyGrants(),
    cwd: Deno.cwd(),
    notice: (line) => notices.push(line),
  });
  mcp.start();
  assertEquals(mcp.states()[0]?.status, "blocked");
  assertStringIncludes(notices[0]!, `--allow-run=${DENO}`);
  await mcp.close();
});

Deno.test("McpServers does not reach a URL server without --allow-net for its host", async () => {
  const notices: string[] = [];
  const grants = emptyGrants();
  grants.allow.net = ["example.com"];
  const mcp = new McpServers({ web: { url: "http://127.0.0.1:9/mcp" } }, {
    grants,
    cwd: Deno.cwd(),
    notice: (line) => notices.push(line),
  });
  mcp.start();
  assertEquals(mcp.states()[0]?.status, "blocked");
  assertStringIncludes(notices[0]!, "--allow-net=127.0.0.1");
  await mcp.close();
});
