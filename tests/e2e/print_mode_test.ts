// End-to-end tests of `harness -p`: the real CLI as a subprocess against the scripted
// SSE server, checking every output format and exit code of the command-line contract.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

Deno.test("harness -p prints the answer and exits 0", async () => {
  await using sandbox = await cliSandbox();
  // A server that states its window (llama-server's /props): nothing is assumed, no note.
  await using server = startFakeLlmServer([reply().text("Hello there", { chunks: 3 })], {
    routes: { "/props": { default_generation_settings: { n_ctx: 8192 } } },
  });
  const out = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout, "Hello there\n");
  assertEquals(out.stderr, "");
  assertEquals(server.requests[0]?.messages.at(-1)?.content, "hi");
  assertEquals(server.requests[0]?.messages[0]?.role, "system");
});

Deno.test("harness -p uses the only model the server lists", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("ok")], { models: ["only-one"] });
  const out = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(server.requests[0]?.model, "only-one");
});

Deno.test("harness -p lists the models and exits 2 when several are served and none chosen", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([], { models: ["a", "b"] });
  const out = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl]);
  assertEquals(out.code, 2);
  match(out.stderr, /pass --model NAME, one of: a, b/);
});

Deno.test("harness -p --output-format json runs tools in the sandbox and reports them", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/notes.txt`, "alpha\nbeta\n");
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "notes.txt" }, { split: 3 }),
    reply().text("The file has two lines."),
  ]);
  const out = await sandbox.run([
    "-p",
    "read notes.txt",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    "--yes",
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(json.result, "The file has two lines.");
  assertEquals(json.stop_reason, "answered");
  assertEquals(json.iterations, 2);
  const calls = json.tool_calls as { name: string; result: { success: boolean; data: string } }[];
  assertEquals(calls.length, 1);
  assertEquals(calls[0]?.name, "read_file");
  assertEquals(calls[0]?.result.success, true);
  match(calls[0]!.result.data, /1: alpha/);
  assert(typeof json.session_id === "string");
  assertEquals(server.pairingErrors, []);
  const toolMessage = server.requests[1]?.messages.find((m) => m.role === "tool");
  assertEquals(JSON.parse(String(toolMessage?.content)).success, true);
});

Deno.test("harness -p denies a call outside the read grant and names the flag", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.cwd}/secret`);
  await Deno.writeTextFile(`${sandbox.cwd}/secret/key.txt`, "k");
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "secret/key.txt" }),
    reply().text("I cannot read it."),
  ]);
  const out = await sandbox.run([
    "-p",
    "read the key",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    "--yes",
    `--allow-read=${sandbox.cwd}/public`,
  ]);
  assertEquals(out.code, 0, out.stderr);
  const calls = lastJsonLine(out.stdout).tool_calls as {
    result: { error_type: string; error_message: string };
  }[];
  assertEquals(calls[0]?.result.error_type, "permission_denied");
  match(calls[0]!.result.error_message, /--allow-read/);
});

Deno.test("harness -p without --yes denies calls that need approval and lists them", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "x");
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("Denied, so I stop."),
  ]);
  const out = await sandbox.run([
    "-p",
    "read a.txt",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  const denials = json.permission_denials as { name: string; reason: string }[];
  assertEquals(denials.length, 1);
  assertEquals(denials[0]?.name, "read_file");
  match(denials[0]!.reason, /--yes|approval/);
  assertEquals(server.pairingErrors, []);
});

Deno.test("harness -p stops at --max-iterations with exit 3", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("get_current_time", {}),
    reply().toolCall("get_current_time", {}),
    reply().toolCall("get_current_time", {}),
  ]);
  const out = await sandbox.run([
    "-p",
    "loop",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--max-iterations",
    "2",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 3, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(json.stop_reason, "iteration_limit");
  assertEquals(json.iterations, 2);
  assertEquals(server.requests.length, 2);
  assert(!out.stderr.includes("/continue"), out.stderr);
});

Deno.test("harness -p answers calls past --max-tool-calls with limit_reached", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply()
      .toolCall("get_current_time", {})
      .toolCall("get_working_directory", {})
      .toolCall("get_current_time", {}),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "-p",
    "go",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--max-tool-calls",
    "2",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const calls = lastJsonLine(out.stdout).tool_calls as {
    arguments: unknown;
    result: { error_type: string };
  }[];
  assertEquals(calls.map((c) => c.result.error_type), ["none", "none", "limit_reached"]);
  // Calls that never ran report their arguments as JSON too, not as the model's text.
  assertEquals(calls.map((c) => typeof c.arguments), ["object", "object", "object"]);
  const toolMessages = server.requests[1]?.messages.filter((m) => m.role === "tool") ?? [];
  assertEquals(toolMessages.length, 3);
  assertEquals(server.pairingErrors, []);
});

Deno.test("harness -p --output-format stream-json prints events then the final object", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("get_working_directory", {}),
    reply().text("Here.", { chunks: 2 }),
  ]);
  const out = await sandbox.run([
    "-p",
    "where",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "stream-json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const events = out.stdout.trim().split("\n").map((line) => JSON.parse(line));
  const types = events.map((e) => e.type);
  assert(types.includes("tool_call"));
  assert(types.includes("tool_result"));
  assert(types.indexOf("tool_call") < types.indexOf("tool_result"));
  assertEquals(events.filter((e) => e.type === "text").map((e) => e.text).join(""), "Here.");
  const final = events.at(-1);
  assertEquals(final.type, "final");
  assertEquals(final.result, "Here.");
  assertEquals(final.stop_reason, "answered");
});

Deno.test("harness -p ends with task_complete's summary", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("task_complete", { summary: "All done." }),
  ]);
  const out = await sandbox.run(["-p", "finish", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout, "All done.\n");
});

Deno.test("harness -p exits 1 with the server's message on an HTTP error", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().httpError(404, { error: { message: 'model "nope" not found, try pulling it first' } }),
  ]);
  const out = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl, "--model", "nope"]);
  assertEquals(out.code, 1);
  match(out.stderr, /model "nope" not found/);
  assert(!out.stderr.includes("    at "), "no stack trace");
});

Deno.test("harness -p exits 1 naming the URL when the server is unreachable", async () => {
  await using sandbox = await cliSandbox();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const url = `http://127.0.0.1:${port}/v1`;
  const out = await sandbox.run(["-p", "hi", "--base-url", url, "--model", "m"]);
  assertEquals(out.code, 1);
  match(out.stderr, new RegExp(`Cannot reach model server "${url}`));
  match(out.stderr, /--base-url/);
  // Without --model, harness asks the server for its models first: the run fails before
  // its first turn, and the JSON formats still end with the final object.
  for (const format of ["json", "stream-json"]) {
    const early = await sandbox.run(["-p", "hi", "--base-url", url, "--output-format", format]);
    assertEquals(early.code, 1);
    const json = lastJsonLine(early.stdout);
    assertEquals([json.stop_reason, json.iterations], ["error", 0]);
    match(String(json.error), /Cannot reach model server/);
    if (format === "stream-json") assertEquals(json.type, "final");
  }
});

Deno.test("harness exits 2 with one line for an unknown flag or a bad value", async () => {
  await using sandbox = await cliSandbox();
  const unknown = await sandbox.run(["--bogus"]);
  assertEquals(unknown.code, 2);
  assertEquals(unknown.stderr.trim().split("\n").length, 1);
  match(unknown.stderr, /Unknown flag "--bogus"/);
  const bad = await sandbox.run(["-p", "x", "--max-iterations", "ten"]);
  assertEquals(bad.code, 2);
  match(bad.stderr, /--max-iterations "ten"/);
});

Deno.test("harness --version and --help exit 0", async () => {
  await using sandbox = await cliSandbox();
  const version = await sandbox.run(["--version"]);
  assertEquals(version.code, 0);
  match(version.stdout, /^harness \d+\.\d+\.\d+/);
  const help = await sandbox.run(["--help"]);
  assertEquals(help.code, 0);
  match(help.stdout, /--output-format/);
});

Deno.test("harness reads the project config file and flags win over it", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("one"), reply().text("two")]);
  await Deno.mkdir(`${sandbox.cwd}/.harness`);
  // base_url from a project config applies only once trusted (tests/e2e/trust_attacks_test.ts).
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.home}/.config/harness/config.jsonc`,
    `{ "base_url": "${server.baseUrl}", "model": "from-user-config" }`,
  );
  await Deno.writeTextFile(
    `${sandbox.cwd}/.harness/config.jsonc`,
    `{\n  // project settings\n  "model": "from-config",\n}\n`,
  );
  const first = await sandbox.run(["-p", "hi"]);
  assertEquals(first.code, 0, first.stderr);
  assertEquals(server.requests[0]?.model, "from-config");
  const second = await sandbox.run(["-p", "hi", "--model", "from-flag"]);
  assertEquals(second.code, 0, second.stderr);
  assertEquals(server.requests[1]?.model, "from-flag");
});

Deno.test("harness exits 2 naming the line and column of a broken config file", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.cwd}/.harness`);
  await Deno.writeTextFile(
    `${sandbox.cwd}/.harness/config.jsonc`,
    `{\n  "model": "x"\n  "oops" 1\n}`,
  );
  const out = await sandbox.run(["-p", "hi"]);
  assertEquals(out.code, 2);
  match(out.stderr, /config\.jsonc": line 3, column 3/);
});

Deno.test("harness -p - exits 2 on an empty or blank stdin, like -p ''", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("never sent")]);
  for (const stdin of ["", " \n\n"]) {
    const out = await sandbox.run(["-p", "-", "--base-url", server.baseUrl, "--model", "m"], {
      stdin,
    });
    assertEquals(out.code, 2, out.stderr);
    match(out.stderr, /Empty prompt on stdin for "-p -"/);
  }
  assertEquals(server.requests.length, 0);
  const piped = await sandbox.run(["-p", "-", "--base-url", server.baseUrl, "--model", "m"], {
    stdin: "hello from stdin\n",
  });
  assertEquals(piped.code, 0, piped.stderr);
  assertEquals(piped.stdout, "never sent\n");
});

Deno.test("harness -p stream-json tool_call events carry the validated arguments of the final object", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("ls", {}),
    reply().toolCall("ls", { max_entries: "many" }),
    reply().text("Done."),
  ]);
  const out = await sandbox.run([
    "-p",
    "list",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    `--allow-read=${sandbox.cwd}`,
    "--output-format",
    "stream-json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const events = out.stdout.trim().split("\n").map((line) => JSON.parse(line));
  const calls = events.filter((e) => e.type === "tool_call");
  const final = events.at(-1);
  assertEquals(
    calls.map((e) => e.arguments),
    final.tool_calls.map((c: { arguments: unknown }) => c.arguments),
  );
  assertEquals(calls[0].arguments.path, ".");
  assertEquals(calls[1].arguments, { max_entries: "many" });
  // Each call's line comes before its permission and result lines.
  const order = events.filter((e) => e.id !== undefined).map((e) => `${e.type}:${e.id}`);
  for (const id of new Set(calls.map((e) => e.id))) {
    const mine = order.filter((entry) => entry.endsWith(`:${id}`));
    assertEquals(mine[0], `tool_call:${id}`);
    assertEquals(mine.at(-1), `tool_result:${id}`);
  }
});
