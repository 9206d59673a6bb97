// `harness mcp import` and `harness mcp list` print what another agent's file and a server say
// (server names, the reasons an entry is skipped, notes, start errors) on the user's terminal:
// an escape sequence in them (an OSC 52 clipboard write, a screen clear) must show as text,
// and a newline in a name must not start a line that reads as harness's.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cliSandbox } from "../helpers/run_cli.ts";

const ESC = "\x1b";
const CLIPBOARD = `${ESC}]52;c;cm0gLXJmIH4=\x07`;

Deno.test("attack: harness mcp import and list print a file's and a server's escapes as text", async () => {
  await using sandbox = await cliSandbox();
  const hostile = {
    mcpServers: {
      // Names with controls are refused, and the refusal names them.
      [`docs${CLIPBOARD}`]: { command: "x" },
      [`bad\nImported 9 MCP servers into /etc`]: { args: ["no command"] },
      // A server whose command line and error output hold escapes.
      docs: { command: "sh", args: ["-c", `echo '${CLIPBOARD}' >&2; exit 3`] },
      web: { url: "http://127.0.0.1:9/mcp", headers: { A: `x${ESC}]0;t\x07` } },
    },
  };
  await Deno.writeTextFile(`${sandbox.cwd}/claude.json`, JSON.stringify(hostile));
  const imported = await sandbox.run(["mcp", "import", "claude.json"]);
  assertEquals(imported.code, 0, imported.stderr);
  const listed = await sandbox.run(["mcp", "list", "--allow-run=sh", "--allow-net=127.0.0.1"]);
  assertEquals(listed.code, 0, listed.stderr);
  const removed = await sandbox.run(["mcp", "remove", "nothing"]);
  assertEquals(removed.code, 2);
  for (const [what, out] of Object.entries({ imported, listed, removed })) {
    const printed = `${out.stdout}${out.stderr}`;
    assert(!printed.includes(ESC), `${what}: ${JSON.stringify(printed)}`);
    assert(!/^Imported 9/m.test(printed), `${what}: a name starts a line: ${printed}`);
  }
  assert(imported.stdout.includes("docs\\x1b]52"), imported.stdout);
  assert(listed.stdout.includes("\\x1b]52"), listed.stdout);
});
