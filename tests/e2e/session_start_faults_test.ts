// Starting on a session log that is not what the user expects, through the real CLI: an empty
// (0-byte) database file is said to be one before a new log starts in it, and --continue with
// nothing to continue exits 1 (a runtime error) with one sentence.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { dirname } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { defaultSessionDatabasePath } from "../../src/sessions/open_session_store.ts";

Deno.test("harness -p on an empty session database says the log starts over", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("hello")]);
  const database = defaultSessionDatabasePath(sandbox.env);
  await Deno.mkdir(dirname(database), { recursive: true });
  await Deno.writeFile(database, new Uint8Array()); // truncated by a crash or a full disk
  const out = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals([out.code, out.stdout], [0, "hello\n"], out.stderr);
  match(out.stderr, /The session database ".*harness\.db" was an empty file \(0 bytes\)/);
  match(out.stderr, /sessions recorded there before are gone/);
  // The next run opens a real database: nothing more to say.
  const again = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl, "--model", "m"]);
  assert(!again.stderr.includes("empty file"), again.stderr);
});

Deno.test("harness --continue with no session in the folder exits 1 with a sentence", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([]);
  const out = await sandbox.run([
    "--continue",
    "-p",
    "go on",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
  ]);
  assertEquals(out.code, 1, out.stderr);
  match(out.stderr, /No session to continue in ".*": start one with "harness"/);
  assertEquals(out.stderr.trim().split("\n").length, 1, out.stderr);
  assertEquals(server.requests.length, 0);
});
