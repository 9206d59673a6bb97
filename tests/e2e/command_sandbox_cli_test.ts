// The command sandbox as the user sees it: the banner and /permissions say how commands run,
// and a command the model runs is confined by the flags (harness -p end to end).

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

const linux = Deno.build.os === "linux";

Deno.test({
  name: "REPL banner and /permissions say how commands run (bubblewrap, or off on purpose)",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([]);
    const base = ["--base-url", server.baseUrl, "--model", "m", "--allow-run", "-R"];
    const confined = await sandbox.run(base, { stdin: "/permissions\n/exit\n" });
    assertEquals(confined.code, 0, confined.stderr);
    match(confined.stdout, /commands: confined by bubblewrap/);
    // What the sandbox stops besides the grants (the approval line says the same).
    match(confined.stdout, /\.git read-only \(--writable-git lets commands commit\)/);
    match(confined.stdout, /only stdin, stdout and stderr inherited/);
    assert(!confined.stdout.includes("unconfined"), confined.stdout);
    const off = await sandbox.run([...base, "--command-sandbox=off"], {
      stdin: "/permissions\n/exit\n",
    });
    assertEquals(off.code, 0, off.stderr);
    // Once in the banner, once in /permissions.
    assertEquals(off.stdout.match(/commands: unconfined/g)?.length, 2, off.stdout);
  },
});

Deno.test({
  name: "harness -p: a command the model runs cannot write outside the workspace or leak keys",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    const outside = await Deno.makeTempDir();
    const target = join(outside, "pwned.txt");
    try {
      await using server = startFakeLlmServer([
        reply().toolCall("run_command", {
          command: `echo "key=$HARNESS_API_KEY"; echo x > ${target}`,
        }),
        reply().text("done"),
      ]);
      const out = await sandbox.run(
        [
          "--base-url",
          server.baseUrl,
          "--model",
          "m",
          "--yes",
          "--allow-run",
          "--allow-read=.",
          "--allow-write=.",
          "-p",
          "go",
          "--output-format",
          "json",
        ],
        { env: { HARNESS_API_KEY: "sekrit-key" } },
      );
      assertEquals(out.code, 0, out.stderr);
      const calls = lastJsonLine(out.stdout).tool_calls as { result: { data: string } }[];
      const data = calls[0]!.result.data;
      assert(data.includes("key=\n"), data);
      assert(!data.includes("sekrit-key"), data);
      assert(data.includes("the command sandbox"), data);
      await Deno.stat(target).then(() => assert(false, "wrote outside"), () => {});
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },
});

Deno.test({
  name: "REPL: the approval prompt for run_command lists what the command sandbox stops",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command: "git status" }),
      reply().text("ok"),
    ]);
    const out = await sandbox.run(
      ["--base-url", server.baseUrl, "--model", "m", "--allow-run", "--allow-read=.", "-N"],
      { stdin: "check git\n4\n\n/exit\n" },
    );
    assertEquals(out.code, 0, out.stderr);
    match(out.stdout, /Permission request {2}run_command/);
    match(
      out.stdout,
      /commands: confined by bubblewrap \(.*\.git read-only.*only stdin, stdout and stderr inherited; no Unix sockets/,
    );
  },
});
