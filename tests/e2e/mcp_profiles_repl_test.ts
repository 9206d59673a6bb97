// The REPL asks once about an npx server's sandbox profile when the server first starts
// (issue 45, item 3): the entry copied from another client's config, with no `sandbox`, is
// shown its profile, the answer is saved into the user's config.jsonc, the server starts and
// the model calls its tool. Real server: @modelcontextprotocol/server-everything through npx.

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { join } from "node:path";
import { parse } from "jsonc-parser";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { EVERYTHING_PACKAGE, HAS_NPM, serverEverything } from "../helpers/server_everything.ts";

/** This machine's npm cache, which the test home uses too (the package is in it already). */
const NPM_CACHE = Deno.env.get("npm_config_cache") ?? join(Deno.env.get("HOME") ?? "/", ".npm");

Deno.test({
  name: "the REPL asks once about an npx server's profile, saves it, and calls its tool",
  ignore: Deno.build.os !== "linux" || !HAS_NPM,
  async fn() {
    await serverEverything(); // fills npm's cache
    await using sandbox = await cliSandbox();
    const file = `${sandbox.home}/.config/harness/config.jsonc`;
    await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
    await Deno.writeTextFile(
      file,
      `// as Claude Desktop's docs write it\n${
        JSON.stringify({
          mcp_servers: { ev: { command: "npx", args: ["-y", EVERYTHING_PACKAGE, "stdio"] } },
        })
      }\n`,
    );
    await using server = startFakeLlmServer([
      reply().toolCall("ev__echo", { message: "from the repl" }),
      reply().text("Echoed."),
    ]);
    const child = sandbox.spawn(
      ["--base-url", server.baseUrl, "--model", "m", "--yes", "--allow-run=npx"],
      { env: { npm_config_cache: NPM_CACHE } },
    );
    const stdin = child.stdin.getWriter();
    // The first line answers the profile question; then one message.
    await stdin.write(new TextEncoder().encode("y\nplease echo\n/exit\n"));
    await stdin.close();
    const out = await child.output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    match(stdout + stderr, /MCP server "ev" starts with npx, which needs in its command sandbox/);
    match(stdout + stderr, /Saved the profile into "ev"'s entry/);
    match(stdout, /Echoed\./);
    const toolMessage = server.requests[1]?.messages.find((m) => m.role === "tool");
    match(String(toolMessage?.content), /from the repl/, stderr);
    const text = await Deno.readTextFile(file);
    match(text, /as Claude Desktop's docs write it/);
    assertEquals(parse(text).mcp_servers.ev.sandbox.net, ["registry.npmjs.org"]);
  },
});
