// Sessions under faults, driven through the real CLI: a -p run whose session log cannot be
// written (the data folder's disk is full), from its first write or later, finishes its
// answer but exits 1 and says why.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { shellQuote } from "../helpers/pty.ts";
import { type CliSandbox, cliSandbox, MAIN } from "../helpers/run_cli.ts";
import { defaultSessionDatabasePath } from "../../src/sessions/open_session_store.ts";

/**
 * Runs the CLI under RLIMIT_FSIZE (`ulimit -f KIB`, SIGXFSZ ignored): every write past that
 * offset in any file fails with EFBIG, as on a full disk.
 */
async function runWithFileLimit(
  sandbox: CliSandbox,
  kib: number,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = [Deno.execPath(), "run", "-A", "--no-prompt", "--unstable-worker-options", MAIN];
  const out = await new Deno.Command("bash", {
    args: [
      "-c",
      `trap '' XFSZ; ulimit -f ${kib}; exec ${[...argv, ...args].map(shellQuote).join(" ")}`,
    ],
    cwd: sandbox.cwd,
    env: sandbox.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

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
    // A limit below the database's size. Deno's own cache is already warm from the run.
    const out = await runWithFileLimit(sandbox, Math.max(1, Math.floor(size / 1024) - 1), args);
    const { stdout, stderr } = out;
    assertEquals(stdout, "answered anyway\n", stderr);
    match(stderr, /error: .*this session is no longer being recorded/);
    assertEquals(out.code, 1, stderr);
  },
});

Deno.test({
  name: "harness -p exits 1 and its JSON says why when the session cannot even start (disk full)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    // Eight different calls (nine model turns, within the default ten) grow the log.
    const calls = Array.from(
      { length: 8 },
      (_, i) => reply().toolCall("add_task", { content: `grow the log ${i}` }),
    );
    await using server = startFakeLlmServer([
      ...calls,
      reply().text("held").hang(),
      reply().text("answered anyway"),
    ]);
    const base = ["--base-url", server.baseUrl, "--model", "m"];
    // Another harness keeps the database open, so its write-ahead log is not reset: a new
    // session's first write lands past that log's end.
    const holder = sandbox.spawn(["-p", "grow the log", ...base]);
    await holder.stdin.close();
    for (let waited = 0; server.requests.length < calls.length + 1; waited += 50) {
      assert(waited < 60_000, `the first run stopped after ${server.requests.length} requests`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    try {
      const wal = (await Deno.stat(`${defaultSessionDatabasePath(sandbox.env)}-wal`)).size;
      // A limit below the log's end (above the 32 KiB shared-memory file): the session's first
      // write fails.
      const limit = Math.floor(wal / 1024) - 1;
      assert(limit >= 40, `the write-ahead log is only ${wal} bytes`);
      const args = ["-p", "hi", "--output-format", "json", ...base];
      const out = await runWithFileLimit(sandbox, limit, args);
      const stderr = out.stderr;
      const final = JSON.parse(out.stdout.trim().split("\n").at(-1)!);
      match(stderr, /error: Cannot write session database/);
      assertEquals(final.result, "answered anyway", stderr);
      match(final.session_error ?? "", /^Cannot write session database .*disk I\/O error/);
      assertEquals(out.code, 1, stderr);
    } finally {
      holder.kill("SIGTERM");
      await holder.output();
    }
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
