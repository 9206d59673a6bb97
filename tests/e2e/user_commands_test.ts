// What the user types besides messages, through the real CLI: !command (run in the command
// sandbox, shown and added to the conversation), custom commands from Markdown files (the
// project's only once trusted), /init and /model.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startPty, startReplPty } from "../helpers/pty.ts";
import { hasCommand } from "../helpers/system_commands.ts";

Deno.test("REPL !command runs without asking, shows its output and adds it to the conversation", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("I see the output")]);
  const out = await sandbox.run(
    ["--base-url", server.baseUrl, "--model", "m", "-R", "--allow-write=.", "--allow-run"],
    { stdin: "!echo from-the-shell\nwhat did it print?\n/exit\n" },
  );
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /from-the-shell\nexit_code: 0/);
  assert(!out.stdout.includes("Permission request"), out.stdout);
  const users = server.requests[0]!.messages.filter((m) => m.role === "user").map((m) => m.content);
  assertEquals(users, [
    "I ran this command in the workspace:\n$ echo from-the-shell\nfrom-the-shell\nexit_code: 0",
    "what did it print?",
  ]);
});

Deno.test("REPL !command without --allow-run names the flag and sends nothing", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m", "-R"], {
    stdin: "!touch made.txt\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /Cannot run "touch made\.txt": commands need --allow-run/);
  assertEquals(server.requests.length, 0);
});

Deno.test("REPL custom command: /help lists it, /name sends its text with the arguments", async () => {
  await using sandbox = await cliSandbox();
  const commands = join(sandbox.home, ".config", "harness", "commands");
  await Deno.mkdir(commands, { recursive: true });
  await Deno.writeTextFile(
    join(commands, "review.md"),
    "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 for bugs ($ARGUMENTS).",
  );
  await using server = startFakeLlmServer([reply().text("reviewed")]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m"], {
    stdin: "/help\n/review src/a.ts twice\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /\/review +Review a file FILE \(yours\)/);
  match(out.stdout, /\/init /);
  match(out.stdout, /\/model /);
  assertEquals(
    server.requests[0]!.messages.at(-1)!.content,
    "Review src/a.ts for bugs (src/a.ts twice).",
  );
});

Deno.test("-p runs a custom command; an untrusted project's command is skipped with a line", async () => {
  await using sandbox = await cliSandbox();
  const project = join(sandbox.cwd, ".claude", "commands");
  await Deno.mkdir(project, { recursive: true });
  await Deno.writeTextFile(join(project, "deploy.md"), "Deploy everything now.");
  const mine = join(sandbox.home, ".config", "harness", "commands");
  await Deno.mkdir(mine, { recursive: true });
  await Deno.writeTextFile(join(mine, "hello.md"), "Say hello to $1.");
  await using server = startFakeLlmServer([reply().text("hello"), reply().text("x")]);
  const base = ["--base-url", server.baseUrl, "--model", "m"];
  const hello = await sandbox.run(["-p", "/hello world", ...base]);
  assertEquals(hello.code, 0, hello.stderr);
  assertEquals(server.requests[0]!.messages.at(-1)!.content, "Say hello to world.");
  match(hello.stderr, /Skipping 1 untrusted project command/);
  const deploy = await sandbox.run(["-p", "/deploy", ...base]);
  assertEquals(deploy.code, 0, deploy.stderr);
  // Not trusted: the prompt goes as typed.
  assertEquals(server.requests[1]!.messages.at(-1)!.content, "/deploy");
});

Deno.test("REPL /init asks the model to write AGENTS.md", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("ok")]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m"], {
    stdin: "/init\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  const sent = String(server.requests[0]!.messages.at(-1)!.content);
  assert(sent.startsWith("Write a starter AGENTS.md for this repository"), sent);
  assert(sent.includes("write AGENTS.md at the workspace root with write_file"), sent);
});

Deno.test("REPL /model lists the server's models and switches, keeping the conversation", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer(
    [reply().text("first answer"), reply().text("second answer")],
    { models: ["small", "large"] },
  );
  const out = await sandbox.run(
    ["--base-url", server.baseUrl, "--model", "small", "--context-length", "4096"],
    { stdin: "hello\n/model\n/model nope\n/model large\nand now?\n/exit\n" },
  );
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, / {2}large\n/);
  match(out.stdout, /\* small\n/);
  match(out.stdout, /No model "nope" on this server: one of small, large/);
  match(
    out.stdout,
    /Now using large: window 4,096 tokens \(--context-length\); the conversation goes on/,
  );
  assertEquals(server.requests.map((r) => r.model), ["small", "large"]);
  const second = server.requests[1]!.messages.map((m) => m.content);
  assert(second.includes("hello") && second.includes("first answer"), JSON.stringify(second));
});

Deno.test("REPL asks about a project's custom commands once, as about its plugins", async () => {
  await using sandbox = await cliSandbox();
  const project = join(sandbox.cwd, ".harness", "commands");
  await Deno.mkdir(project, { recursive: true });
  await Deno.writeTextFile(join(project, "ship.md"), "Ship it: $ARGUMENTS");
  await using server = startFakeLlmServer([reply().text("shipped"), reply().text("again")]);
  const base = ["--base-url", server.baseUrl, "--model", "m"];
  const first = await sandbox.run(base, { stdin: "y\n/ship now\n/exit\n" });
  assertEquals(first.code, 0, first.stderr);
  match(first.stdout + first.stderr, /Project commands are prompts this repository wrote/);
  assertEquals(server.requests[0]!.messages.at(-1)!.content, "Ship it: now");
  // Trusted now: not asked again, and -p may use it.
  const second = await sandbox.run(["-p", "/ship later", ...base]);
  assertEquals(second.code, 0, second.stderr);
  assert(!second.stderr.includes("untrusted"), second.stderr);
  assertEquals(server.requests[1]!.messages.at(-1)!.content, "Ship it: later");
});

const linux = Deno.build.os === "linux";

Deno.test({
  name: "REPL on a terminal: !command runs confined without asking and joins the conversation",
  // The command sandbox is bubblewrap on Linux.
  ignore: !linux || !hasCommand("bwrap"),
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().text("I see it")]);
    await using pty = await startReplPty(sandbox, [
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "-R",
      "--allow-write=.",
      "--allow-run",
    ]);
    await pty.type("!echo from-the-shell; touch ../outside.txt\r");
    await pty.waitFor((out) => /exit_code: \d+/.test(out), "the command's output");
    assert(pty.output.includes("from-the-shell"), pty.output);
    assert(!pty.output.includes("Permission request"), pty.output);
    // The write grant is the workspace: the command sandbox refuses a file beside it.
    await Deno.stat(join(sandbox.cwd, "..", "outside.txt")).then(
      () => assert(false, "the command wrote outside the workspace"),
      (error) => assert(error instanceof Deno.errors.NotFound),
    );
    assertEquals(server.requests.length, 0);
    await pty.type("what did it print?\r");
    await pty.waitFor((out) => out.includes("I see it"), "the answer");
    const users = server.requests[0]!.messages.filter((m) => m.role === "user");
    assert(
      String(users[0]?.content).startsWith(
        "I ran this command in the workspace:\n$ echo from-the-shell; touch ../outside.txt\n" +
          "from-the-shell\n",
      ),
      String(users[0]?.content),
    );
    assertEquals(users[1]?.content, "what did it print?");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: !command without --allow-run names the flag",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([]);
    await using pty = await startReplPty(sandbox, [
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "-R",
    ]);
    await pty.type("!touch made.txt\r");
    await pty.waitFor(
      (out) => out.includes('Cannot run "touch made.txt": commands need --allow-run'),
      "the refusal",
    );
    assertEquals(server.requests.length, 0);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name: "REPL on a terminal: custom commands in /help and Tab, a project's after the question",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    const mine = join(sandbox.home, ".config", "harness", "commands");
    await Deno.mkdir(mine, { recursive: true });
    await Deno.writeTextFile(
      join(mine, "review.md"),
      "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 for bugs ($ARGUMENTS).",
    );
    const project = join(sandbox.cwd, ".claude", "commands");
    await Deno.mkdir(project, { recursive: true });
    await Deno.writeTextFile(
      join(project, "ship.md"),
      "---\ndescription: Ship a release\n---\nShip version $1.",
    );
    await using server = startFakeLlmServer([reply().text("reviewed"), reply().text("shipped")]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
    // The question comes at start, before the REPL reads a line (a key typed before it is
    // shown answers it, as for a project's plugins).
    await pty.waitFor(
      (out) => out.includes("Project commands are prompts this repository wrote"),
      "the trust question",
    );
    await pty.type("y");
    await pty.waitFor((out) => out.includes("\x1b[?2004h"), "the prompt");
    await pty.type("/help\r");
    await pty.waitFor((out) => /\/ship +Ship a release/.test(out), "the project's command");
    assert(/\/review +Review a file FILE \(yours\)/.test(pty.output), pty.output);
    await pty.waitFor(
      (out) => /Ctrl-C twice or Ctrl-D exits[^]*> /.test(out),
      "the prompt after /help",
    );
    let mark = pty.output.length;
    await pty.type("/rev\t");
    await pty.waitFor((out) => out.slice(mark).includes("/review"), "the completed command");
    await pty.type(" a.ts twice\r");
    await pty.waitFor((out) => out.includes("reviewed"), "the first answer");
    await pty.waitFor((out) => /reviewed[^]*> /.test(out), "the prompt after the answer");
    mark = pty.output.length;
    await pty.type("/sh\t");
    await pty.waitFor((out) => out.slice(mark).includes("/ship"), "the completed project command");
    await pty.type(" 2.0\r");
    await pty.waitFor((out) => out.includes("shipped"), "the second answer");
    const users = server.requests[1]!.messages.filter((m) => m.role === "user");
    assertEquals(users.map((m) => m.content), [
      "Review a.ts for bugs (a.ts twice).",
      "Ship version 2.0.",
    ]);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test({
  name:
    "REPL on a terminal: /model lists the server's models and switches, keeping the conversation",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer(
      [reply().text("first answer"), reply().text("second answer")],
      { models: ["small", "large"] },
    );
    await using pty = await startReplPty(sandbox, [
      "--base-url",
      server.baseUrl,
      "--model",
      "small",
      "--context-length",
      "4096",
    ]);
    await pty.type("hello\r");
    await pty.waitFor((out) => out.includes("first answer"), "the first answer");
    await pty.type("/model\r");
    await pty.waitFor((out) => out.includes("Type /model NAME to switch"), "the list");
    assert(/\* small\r?\n {2}large\r?\n/.test(pty.output), pty.output);
    await pty.type("/model large\r");
    await pty.waitFor((out) => out.includes("Now using large"), "the switch");
    await pty.type("and now?\r");
    await pty.waitFor((out) => out.includes("second answer"), "the second answer");
    assertEquals(server.requests.map((r) => r.model), ["small", "large"]);
    const second = server.requests[1]!.messages.map((m) => m.content);
    assert(second.includes("hello") && second.includes("first answer"), JSON.stringify(second));
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});
