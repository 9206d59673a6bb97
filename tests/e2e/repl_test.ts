// End-to-end tests of the interactive REPL driven through piped stdin: answers, slash
// commands, permission prompts (once, session, always, deny with a reason) and exit.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";

Deno.test("REPL answers, runs slash commands and exits on /exit", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("Hi from the model")]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m"], {
    stdin: "hello\n/tools\n/bogus\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /harness .* m @ /);
  match(out.stdout, /sandbox: /);
  match(out.stdout, /Hi from the model/);
  match(out.stdout, /read_file/);
  match(out.stdout, /Unknown command "\/bogus"/);
});

Deno.test("REPL shows the banner once, and the session it names is the one logged", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("Noted")]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m"], {
    stdin: "remember the banner\n",
  });
  assertEquals(out.code, 0, out.stderr);
  // The banner and the first prompt come first (shown before the REPL loads), then the
  // answer and one more prompt; nothing is drawn twice.
  match(out.stdout, /^harness .* m @ .*\n.*\nsession [0-9a-f-]{36}\nType \/help.*Ctrl-D exits\n> /);
  assertEquals(out.stdout.match(/^harness /gm)?.length, 1, out.stdout);
  assertEquals(out.stdout.match(/> /g)?.length, 2, out.stdout);
  const id = /session ([0-9a-f-]{36})/.exec(out.stdout)![1]!;
  const listed = await sandbox.run(["sessions"]);
  assertEquals(listed.code, 0, listed.stderr);
  assert(listed.stdout.includes(id), `${id} not in:\n${listed.stdout}`);
  assert(listed.stdout.includes("remember the banner"), listed.stdout);
});

Deno.test("REPL exits 0 at end of input (Ctrl-D)", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m"], { stdin: "" });
  assertEquals(out.code, 0, out.stderr);
});

Deno.test("REPL permission prompt: allow once runs the tool, deny sends the reason to the model", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "apple\n");
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("It says apple."),
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("Understood."),
  ]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m", "--allow-read=."], {
    stdin: "read a\n1\nread again\n4\nnot now please\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /Permission request\s+read_file/);
  match(out.stdout, /It says apple/);
  const second = server.requests[3]?.messages.filter((m) => m.role === "tool") ?? [];
  const denied = JSON.parse(String(second.at(-1)?.content));
  assertEquals(denied.error_type, "permission_denied");
  match(denied.error_message, /not now please/);
  assertEquals(server.pairingErrors, []);
});

Deno.test("REPL permission prompt: 'session' stops asking for the rest of the session", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "apple\n");
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("one"),
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("two"),
  ]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m", "--allow-read=."], {
    stdin: "first\n2\nsecond\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout.match(/Permission request/g)?.length, 1);
  match(out.stdout, /two/);
  const last = server.requests[3]?.messages.filter((m) => m.role === "tool").at(-1);
  assertEquals(JSON.parse(String(last?.content)).success, true);
});

Deno.test("REPL permission prompt: 'always' saves a rule that survives a restart", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "apple\n");
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("one"),
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("two"),
  ]);
  const args = ["--base-url", server.baseUrl, "--model", "m", "--allow-read=."];
  const first = await sandbox.run(args, { stdin: "first\n3\n/exit\n" });
  assertEquals(first.code, 0, first.stderr);
  const policy = await Deno.readTextFile(`${sandbox.home}/.config/harness/policies.jsonc`);
  match(policy, /"read_file"/);
  const second = await sandbox.run(args, { stdin: "second\n/exit\n" });
  assertEquals(second.code, 0, second.stderr);
  assert(!second.stdout.includes("Permission request"), second.stdout);
  match(second.stdout, /two/);
});

Deno.test("REPL /continue goes on after the iteration limit, and not after an answer", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("get_current_time", {}),
    reply().text("finished"),
  ]);
  const out = await sandbox.run(
    ["--base-url", server.baseUrl, "--model", "m", "--max-iterations", "1"],
    { stdin: "go\n/continue\n/continue\n/exit\n" },
  );
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /\/continue/);
  match(out.stdout, /finished/);
  // The second /continue comes after an answer: nothing is sent.
  match(out.stdout, /Nothing to continue: the last turn was answered/);
  assertEquals(server.requests.length, 2);
  assertEquals(server.pairingErrors, []);
});

Deno.test("REPL --continue shows where the conversation left off", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("get_current_time", {}),
    reply().text("It is noon.\nAnything else?"),
  ]);
  const base = ["--base-url", server.baseUrl, "--model", "m"];
  const first = await sandbox.run(["-p", "what time is it?", ...base]);
  assertEquals(first.code, 0, first.stderr);
  const out = await sandbox.run(["--continue", ...base], { stdin: "/exit\n" });
  assertEquals(out.code, 0, out.stderr);
  const shown = out.stdout + out.stderr;
  match(shown, /> what time is it\?/);
  match(shown, /· get_current_time \{\}/);
  match(shown, /It is noon\.\nAnything else\?/);
  match(shown, /Resumed session/);
});
