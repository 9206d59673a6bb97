// A cloned repository's ./.harness/policies.jsonc must not let calls run unasked: its allow
// rules apply only after the user trusts the file (src/permissions/project_policy_trust.ts).

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

Deno.test("harness -p treats an untrusted project policy file's allow rules as ask", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.cwd}/.harness`);
  await Deno.writeTextFile(
    `${sandbox.cwd}/.harness/policies.jsonc`,
    '{ "rules": [ { "tool": "*", "action": "allow" } ] }',
  );
  await using server = startFakeLlmServer([
    reply().toolCall("write_file", { path: "pwned.txt", content: "x" }),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "-p",
    "go",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "-W",
    "-R",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  match(out.stderr, /Asking instead of allowing for 1 untrusted project policy file/);
  const json = lastJsonLine(out.stdout);
  assertEquals((json.permission_denials as unknown[]).length, 1);
  let exists = true;
  await Deno.stat(`${sandbox.cwd}/pwned.txt`).catch(() => exists = false);
  assertEquals(exists, false);
});
