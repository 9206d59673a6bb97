// --deny-read end to end (issue 26, item 1): the model's `cat .env secrets/key.pem` through
// harness -p against a scripted model server, and the same command through `harness tool`,
// never print what the flags deny. Needs bubblewrap (fails without it).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

const linux = Deno.build.os === "linux";
const FLAGS = ["--allow-run", "--allow-read=.", "--allow-write=.", "--deny-read=.env,secrets"];

async function withSecrets(sandbox: CliSandbox): Promise<void> {
  await Deno.writeTextFile(join(sandbox.cwd, ".env"), "API_KEY=env-secret\n");
  await Deno.mkdir(join(sandbox.cwd, "secrets"));
  await Deno.writeTextFile(join(sandbox.cwd, "secrets", "key.pem"), "pem-secret\n");
}

Deno.test({
  name: "harness -p: the model's cat .env secrets/key.pem prints neither under --deny-read",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await withSecrets(sandbox);
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command: "cat .env secrets/key.pem" }),
      reply().text("done"),
    ]);
    const out = await sandbox.run([
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      ...FLAGS,
      "-p",
      "show the secrets",
      "--output-format",
      "json",
    ]);
    assertEquals(out.code, 0, out.stderr);
    const calls = lastJsonLine(out.stdout).tool_calls as { result: { data: string } }[];
    const data = calls[0]!.result.data;
    assert(!data.includes("env-secret") && !data.includes("pem-secret"), data);
    assert(data.includes("--deny-read"), data);
    // Nor did the model's next request carry them.
    const sent = JSON.stringify(server.requests.at(-1));
    assert(!sent.includes("env-secret") && !sent.includes("pem-secret"), sent);
  },
});

Deno.test({
  name: "harness tool run_command: cat .env secrets/key.pem prints neither under --deny-read",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await withSecrets(sandbox);
    const out = await sandbox.run([
      "tool",
      "run_command",
      '{"command": "cat .env secrets/key.pem"}',
      ...FLAGS,
    ]);
    const result = JSON.parse(out.stdout);
    const data = String(result.data);
    assert(!data.includes("env-secret") && !data.includes("pem-secret"), out.stdout);
    assert(data.includes("exit_code: 1"), out.stdout);
  },
});
