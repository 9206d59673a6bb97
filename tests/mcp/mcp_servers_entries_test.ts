// MCP entries as other clients write them start in the command sandbox without hand edits
// (issue 45, item 3): a server installed outside the workspace (`node /path/dist/index.js`)
// reads its own files; an `npx` entry's profile is asked once, saved into its entry, and then
// starts; a server that still cannot start says which path or host its sandbox refused.
// Real servers: @modelcontextprotocol/server-everything installed from npm into a temp folder,
// and the same package run by npx. Needs bubblewrap and npm (ignored without them).

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { dirname, join } from "node:path";
import { parse } from "jsonc-parser";
import { emptyGrants, type Grants } from "../../src/sandbox/grants/grants.ts";
import { McpServers } from "../../src/mcp/mcp_servers.ts";
import type { McpServerConfig } from "../../src/config/mcp_config.ts";
import { EVERYTHING_PACKAGE, HAS_NPM, serverEverything } from "../helpers/server_everything.ts";

const ignore = Deno.build.os !== "linux" || !HAS_NPM;

async function started(
  servers: Record<string, McpServerConfig>,
  options: { grants: Grants; cwd: string; env?: Record<string, string>; answer?: string },
) {
  const notices: string[] = [];
  const questions: string[] = [];
  const mcp = new McpServers(servers, {
    grants: options.grants,
    cwd: options.cwd,
    notice: (line) => notices.push(line),
    ...(options.env ? { environment: options.env } : {}),
  });
  // Without an answer, nobody can be asked (as with -p): nothing is.
  if (options.answer !== undefined) {
    const answer = options.answer;
    await mcp.approveProfiles({
      write: (text) => questions.push(text),
      readLine: (prompt) => {
        questions.push(prompt);
        return Promise.resolve(answer);
      },
    });
  }
  mcp.start();
  await mcp.settled(90_000);
  return { mcp, notices, questions, [Symbol.asyncDispose]: () => mcp.close() };
}

function grantsFor(command: string, workspace: string): Grants {
  const grants = emptyGrants();
  grants.allow.run = [command];
  grants.allow.read = [workspace];
  return grants;
}

Deno.test({
  name: "a server installed outside the workspace starts from its entry as written",
  ignore,
  async fn() {
    const index = await serverEverything();
    const workspace = await Deno.makeTempDir({ prefix: "harness_ws_" });
    try {
      // The entry as Claude Desktop's docs write it: node and the server's own script.
      await using t = await started(
        { everything: { command: "node", args: [index, "stdio"] } },
        { grants: grantsFor("node", workspace), cwd: workspace },
      );
      const state = t.mcp.states()[0]!;
      assertEquals(state.status, "ready", t.notices.join("\n"));
      assert(state.tools.some((tool) => tool.name === "echo"), JSON.stringify(state.tools));
      const called = await t.mcp.call(
        { server: "everything", tool: "echo" },
        { message: "hi" },
        {},
      );
      assert(called.ok && JSON.stringify(called.result).includes("hi"), JSON.stringify(called));
      // Without --allow-read the workspace is not there to start in: it starts in "/", as
      // Claude Desktop starts servers, instead of failing to change into it.
      const none = grantsFor("node", workspace);
      none.allow.read = [];
      await using bare = await started(
        { everything: { command: "node", args: [index, "stdio"] } },
        { grants: none, cwd: workspace },
      );
      assertEquals(bare.mcp.states()[0]?.status, "ready", bare.notices.join("\n"));
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "a server that still cannot start names the path its command sandbox refused",
  ignore,
  async fn() {
    const index = await serverEverything();
    const workspace = await Deno.makeTempDir({ prefix: "harness_ws_" });
    try {
      const grants = grantsFor("node", workspace);
      grants.deny.read = [dirname(index)];
      await using t = await started(
        { everything: { command: "node", args: [index, "stdio"] } },
        { grants, cwd: workspace },
      );
      assertEquals(t.mcp.states()[0]?.status, "failed");
      match(
        t.notices.join("\n"),
        new RegExp(`refused reading "${index}" \\(--deny-read hides it\\)`),
      );
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "a server that cannot reach a host names the host its command sandbox refused",
  ignore,
  async fn() {
    const workspace = await Deno.makeTempDir({ prefix: "harness_ws_" });
    try {
      const fetches = "require('https').get('https://registry.npmjs.org/', () => {})" +
        ".on('error', (e) => { console.error(e.message); process.exit(1); })";
      await using t = await started(
        { fetcher: { command: "node", args: ["-e", fetches] } },
        { grants: grantsFor("node", workspace), cwd: workspace },
      );
      assertEquals(t.mcp.states()[0]?.status, "failed");
      match(t.notices.join("\n"), /refused the network to "registry\.npmjs\.org"/);
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "an npx entry's profile is asked once, saved into its entry, and the server starts",
  ignore,
  async fn() {
    await serverEverything(); // npm's cache holds the package: npx reads it from there
    const workspace = await Deno.makeTempDir({ prefix: "harness_ws_" });
    const config = await Deno.makeTempDir({ prefix: "harness_cfg_" });
    try {
      const entry = { command: "npx", args: ["-y", EVERYTHING_PACKAGE, "stdio"] };
      const file = join(config, "harness", "config.jsonc");
      await Deno.mkdir(dirname(file));
      await Deno.writeTextFile(
        file,
        `{\n  // mine\n  "mcp_servers": ${JSON.stringify({ ev: entry })}\n}\n`,
      );
      const env = { ...Deno.env.toObject(), XDG_CONFIG_HOME: config };
      const options = { grants: grantsFor("npx", workspace), cwd: workspace, env };
      {
        // Without anyone to ask: not started, and the line names what npx needs.
        await using t = await started({ ev: entry }, options);
        assertEquals(t.mcp.states()[0]?.status, "blocked");
        match(
          t.notices[0] ?? "",
          /npx needs "~\/\.npm" \(read and write\) and the network to "registry\.npmjs\.org"/,
        );
        match(t.notices[0] ?? "", /"sandbox": \{"read":\["~\/\.npm","~\/\.npmrc"\]/);
      }
      {
        await using t = await started({ ev: entry }, { ...options, answer: "y" });
        match(t.questions.join(""), /MCP server "ev" starts with npx/);
        match(t.questions.join(""), /read, write +~\/\.npm/);
        assertEquals(t.mcp.states()[0]?.status, "ready", t.notices.join("\n"));
      }
      const text = await Deno.readTextFile(file);
      match(text, /\/\/ mine/);
      const saved = parse(text).mcp_servers.ev;
      assertEquals(saved.sandbox.write, ["~/.npm"]);
      assertEquals(saved.sandbox.net, ["registry.npmjs.org"]);
      {
        // Saved: the next run starts it without asking.
        await using t = await started({ ev: saved }, { ...options, answer: "n" });
        assertEquals(t.questions, []);
        assertEquals(t.mcp.states()[0]?.status, "ready", t.notices.join("\n"));
      }
    } finally {
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(config, { recursive: true });
    }
  },
});
