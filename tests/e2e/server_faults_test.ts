// Model servers failing in ways a soak finds, through `harness -p`: a server that dies
// mid-answer leaves the text that had streamed in the result, marked partial; a server that
// accepts the connection and never answers is said to have done so, not to be unreachable.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";

function lastJson(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

Deno.test("-p --output-format json keeps the text streamed before the server died, marked partial", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().text("The answer so far is", { chunks: 4 }).dropConnection(3),
  ]);
  const out = await sandbox.run([
    "-p",
    "hi",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 1, out.stderr);
  const final = lastJson(out.stdout);
  assertEquals(final.stop_reason, "error");
  assert(String(final.result).startsWith("The answer"), out.stdout);
  assertEquals(final.partial, true);
  match(String(final.error), /failed mid-answer/);
});

Deno.test("a server that accepts the connection and never answers is not called unreachable", async () => {
  await using sandbox = await cliSandbox();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  try {
    const out = await sandbox.run([
      "-p",
      "hi",
      "--base-url",
      `http://127.0.0.1:${listener.addr.port}/v1`,
      "--model",
      "m",
      "--context-length",
      "8192",
      "--first-byte-timeout",
      "1",
      "--output-format",
      "json",
    ]);
    assertEquals(out.code, 1, out.stderr);
    const error = String(lastJson(out.stdout).error);
    assert(!error.startsWith("Cannot reach"), error);
    match(error, /accepted the connection but sent nothing within 1 s/);
    match(error, /--first-byte-timeout/);
  } finally {
    listener.close();
    for (const conn of held) conn.close();
    await accepting.catch(() => {});
  }
});
