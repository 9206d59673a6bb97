// Through the real CLI (issue 45, item 3): `harness mcp add` of an npx server shows npx's
// profile once and saves it into the entry, and `harness mcp list` then starts the server in
// its command sandbox; `harness mcp import` of a Claude Desktop file whose node server lives
// outside the workspace starts it unchanged, and a declined npx profile says what it needs.
// Needs bubblewrap and npm (ignored without them).

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { join } from "node:path";
import { parse } from "jsonc-parser";
import { cliSandbox } from "../../helpers/run_cli.ts";
import { EVERYTHING_PACKAGE, HAS_NPM, serverEverything } from "../../helpers/server_everything.ts";

const ignore = Deno.build.os !== "linux" || !HAS_NPM;
/** This machine's npm cache, which the test home uses too (the package is in it already). */
const NPM_CACHE = Deno.env.get("npm_config_cache") ?? join(Deno.env.get("HOME") ?? "/", ".npm");

Deno.test({
  name: "harness mcp add asks once for npx's profile, saves it, and mcp list starts the server",
  ignore,
  async fn() {
    await serverEverything(); // fills npm's cache
    await using sandbox = await cliSandbox();
    const env = { npm_config_cache: NPM_CACHE };
    const added = await sandbox.run(
      ["mcp", "add", "ev", "--", "npx", "-y", EVERYTHING_PACKAGE, "stdio"],
      { stdin: "y\n", env },
    );
    assertEquals(added.code, 0, added.stderr);
    match(added.stderr, /MCP server "ev" starts with npx, which needs in its command sandbox/);
    match(added.stderr, /network +registry\.npmjs\.org/);
    const file = `${sandbox.home}/.config/harness/config.jsonc`;
    const entry = parse(await Deno.readTextFile(file)).mcp_servers.ev;
    assertEquals(entry.sandbox, {
      read: [NPM_CACHE, "~/.npmrc"],
      write: [NPM_CACHE],
      net: ["registry.npmjs.org"],
      env: ["npm_config_cache"],
    });
    const listed = await sandbox.run(["mcp", "list", "--allow-run=npx", "--allow-read=."], { env });
    match(listed.stdout, /ev {2}ready in [\d.]+ s {2}\d+ tools/, listed.stdout + listed.stderr);
    // Saved: nothing is asked again.
    assertEquals(listed.stderr.includes("starts with npx"), false, listed.stderr);
  },
});

Deno.test({
  name: "harness mcp import: a node server outside the workspace starts as written",
  ignore,
  async fn() {
    const index = await serverEverything();
    await using sandbox = await cliSandbox();
    const desktop = join(sandbox.cwd, "claude_desktop_config.json");
    await Deno.writeTextFile(
      desktop,
      JSON.stringify({
        mcpServers: {
          local: { command: "node", args: [index, "stdio"] },
          fromNpm: { command: "npx", args: ["-y", EVERYTHING_PACKAGE, "stdio"] },
        },
      }),
    );
    // The npx profile is declined (end of input answers no).
    const imported = await sandbox.run(["mcp", "import", desktop]);
    assertEquals(imported.code, 0, imported.stderr);
    match(imported.stderr, /Not saved: harness asks again when "fromNpm" first starts/);
    const listed = await sandbox.run(["mcp", "list", "--allow-run=node,npx", "--allow-read=."]);
    match(listed.stdout, /local {2}ready in [\d.]+ s {2}\d+ tools/, listed.stdout + listed.stderr);
    match(listed.stdout, /fromNpm {2}blocked/);
    match(
      listed.stdout,
      /npx needs "~\/\.npm" \(read and write\) and the network to "registry\.npmjs\.org"/,
    );
  },
});
