// @ mentions through the real CLI: -p and the REPL attach a file as read_file gives it, and a
// mention the sandbox would refuse stops the message before anything reaches the server.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startReplPty } from "../helpers/pty.ts";

Deno.test("-p attaches @file as read_file returns it", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(join(sandbox.cwd, "notes.txt"), "first\nsecond\n");
  await using server = startFakeLlmServer([reply().text("read")]);
  const out = await sandbox.run([
    "-p",
    "summarise @notes.txt",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const sent = server.requests[0]!.messages.at(-1)!;
  assertEquals(
    sent.content,
    'summarise @notes.txt\n\n<file path="notes.txt">\n1: first\n2: second\n</file>',
  );
});

Deno.test("-p attack: @../../etc/passwd and a --deny-read file are refused, nothing is sent", async () => {
  for (
    const [prompt, flags] of [
      ["what is in @../../etc/passwd", ["--allow-read=."]],
      ["print @.env", ["--allow-read=.", "--deny-read=.env"]],
    ] as const
  ) {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(join(sandbox.cwd, ".env"), "API_KEY=hunter2\n");
    await using server = startFakeLlmServer([reply().text("never")]);
    const out = await sandbox.run([
      "-p",
      prompt,
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      ...flags,
    ]);
    assertEquals(out.code, 2, out.stderr);
    match(out.stderr, /Cannot attach "@[^"]+": .*The message was not sent/);
    assert(!out.stderr.includes("hunter2") && !out.stderr.includes("root:"), out.stderr);
    assertEquals(server.requests.length, 0);
  }
});

Deno.test("REPL attaches @folder/ as its listing and keeps a missing path as text", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(join(sandbox.cwd, "src"));
  await Deno.writeTextFile(join(sandbox.cwd, "src", "main.ts"), "export {};\n");
  await using server = startFakeLlmServer([reply().text("seen")]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m", "-R"], {
    stdin: "look at @src/ and ask @bob\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  const sent = String(server.requests[0]!.messages.at(-1)!.content);
  assert(/<folder path="src\/">[^]*main\.ts[^]*<\/folder>$/.test(sent), sent);
  match(out.stdout, /@bob: no such file or folder in the workspace; sent as text/);
});

Deno.test({
  name: "REPL on a terminal attack: @../../etc/passwd and a denied @.env send nothing; @file goes",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(join(sandbox.cwd, ".env"), "API_KEY=hunter2\n");
    await Deno.writeTextFile(join(sandbox.cwd, "notes.txt"), "first\nsecond\n");
    await using server = startFakeLlmServer([reply().text("summarised")]);
    await using pty = await startReplPty(sandbox, [
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--allow-read=.",
      "--deny-read=.env",
    ]);
    await pty.type("what is in @../../etc/passwd\r");
    await pty.waitFor((out) => out.includes("The message was not sent"), "the first refusal");
    await pty.type("print @.env\r");
    await pty.waitFor(
      (out) => /Cannot attach "@\.env": [^\n]*--deny-read/.test(out),
      "the second refusal",
    );
    assertEquals(server.requests.length, 0);
    await pty.type("summarise @notes.txt\r");
    await pty.waitFor((out) => out.includes("summarised"), "the answer");
    assertEquals(server.requests.length, 1);
    assertEquals(
      server.requests[0]!.messages.filter((m) => m.role === "user").map((m) => m.content),
      ['summarise @notes.txt\n\n<file path="notes.txt">\n1: first\n2: second\n</file>'],
    );
    assert(!pty.output.includes("hunter2") && !pty.output.includes("root:"), pty.output);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});
