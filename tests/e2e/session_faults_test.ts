// Sessions under faults, driven through the real CLI: a -p run whose session log cannot be
// written (the data folder's disk is full) finishes its answer but exits 1.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { shellQuote } from "../helpers/pty.ts";
import { cliSandbox, MAIN } from "../helpers/run_cli.ts";
import { defaultSessionDatabasePath } from "../../src/sessions/open_session_store.ts";

Deno.test({
  name: "harness -p exits 1 when the session log cannot be written (disk full)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([
      reply().text("first"),
      reply().toolCall("get_working_directory", {}),
      reply().text("answered anyway"),
    ]);
    const args = ["-p", "hi", "--base-url", server.baseUrl, "--model", "m"];
    // A first run creates the database, so the full disk only meets the session's writes.
    const first = await sandbox.run(args);
    assertEquals(first.code, 0, first.stderr);
    const database = defaultSessionDatabasePath(sandbox.env);
    const size = (await Deno.stat(database)).size;
    // RLIMIT_FSIZE below the database's size: every write past that offset fails with EFBIG
    // (SIGXFSZ ignored), as on a full disk. Deno's own cache is already warm from the run.
    const argv = [Deno.execPath(), "run", "-A", "--no-prompt", "--unstable-worker-options", MAIN];
    const script = `trap '' XFSZ; ulimit -f ${Math.max(1, Math.floor(size / 1024) - 1)}; exec ${
      [...argv, ...args].map(shellQuote).join(" ")
    }`;
    const out = await new Deno.Command("bash", {
      args: ["-c", script],
      cwd: sandbox.cwd,
      env: sandbox.env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(stdout, "answered anyway\n", stderr);
    match(stderr, /error: .*this session is no longer being recorded/);
    assertEquals(out.code, 1, stderr);
  },
});

Deno.test("harness --resume of a session another harness has open continues in a copy", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().text("first answer"),
    reply().text("partial").hang(),
    reply().text("answer in the copy"),
  ]);
  const args = ["--base-url", server.baseUrl, "--model", "m"];
  const first = await sandbox.run(["-p", "one", "--output-format", "json", ...args]);
  assertEquals(first.code, 0, first.stderr);
  const id = JSON.parse(first.stdout.trim().split("\n").at(-1)!).session_id as string;

  // A second run resumes the session and waits on a server that never finishes.
  const holder = sandbox.spawn(["-p", "two", "--resume", id, ...args]);
  await holder.stdin.close();
  while (server.requests.length < 2) await new Promise((r) => setTimeout(r, 50));

  const third = await sandbox.run([
    "-p",
    "three",
    "--resume",
    id,
    "--output-format",
    "json",
    ...args,
  ]);
  holder.kill("SIGTERM");
  await holder.output();
  assertEquals(third.code, 0, third.stderr);
  match(third.stderr, new RegExp(`Session ${id} is open in another harness process`));
  const copy = JSON.parse(third.stdout.trim().split("\n").at(-1)!).session_id as string;
  assert(copy !== id);
  // The copy carried the conversation so far, without the held turn's unanswered message.
  const sent = server.requests[2]!.messages.map((m) => m.content);
  assert(sent.includes("one") && sent.includes("first answer"), JSON.stringify(sent));
  assertEquals(sent.at(-1), "three");
});
