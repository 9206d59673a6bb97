// The loop guard end to end: `harness -p` against a scripted server whose model reads the same
// file again and again. The third identical read is answered without running, counted in the
// JSON's `repeated_calls` and logged as a `repeated_call` result; `loop_guard: 0` turns it off.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

const READS = 3;

function script() {
  return [
    ...Array.from({ length: READS }, () => reply().toolCall("read_file", { path: "a.txt" })),
    reply().text("It says alpha."),
  ];
}

function printArgs(baseUrl: string): string[] {
  return [
    "-p",
    "read a.txt",
    "--base-url",
    baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    "--yes",
    "--allow-read=.",
  ];
}

Deno.test("harness -p answers the third identical read from the guard and counts it", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "alpha\n");
  await using server = startFakeLlmServer(script());
  const out = await sandbox.run(printArgs(server.baseUrl));
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(json.repeated_calls, 1);
  const calls = json.tool_calls as { result: { error_type: string; error_message: string } }[];
  assertEquals(calls.map((call) => call.result.error_type), ["none", "none", "repeated_call"]);
  assert(calls[2]!.result.error_message.startsWith("Not run:"), calls[2]!.result.error_message);
  // The model was told, in the request after the third call.
  const told = server.requests[3]?.messages.at(-1);
  assert(told?.role === "tool" && String(told.content).includes("repeated_call"));

  const exported = await sandbox.run(["sessions", "export", String(json.session_id)]);
  assertEquals(exported.code, 0, exported.stderr);
  const finished = exported.stdout.trim().split("\n").map((line) => JSON.parse(line))
    .filter((event) => event.type === "tool_call_finished")
    .map((event) => event.payload.status);
  assertEquals(finished, ["succeeded", "succeeded", "repeated_call"]);
});

Deno.test("harness -p runs every identical read with loop_guard 0 in the config", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "alpha\n");
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(`${sandbox.home}/.config/harness/config.jsonc`, '{ "loop_guard": 0 }');
  await using server = startFakeLlmServer(script());
  const out = await sandbox.run(printArgs(server.baseUrl));
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(json.repeated_calls, 0);
  const calls = json.tool_calls as { result: { error_type: string } }[];
  assertEquals(calls.map((call) => call.result.error_type), ["none", "none", "none"]);
});

Deno.test("harness -p refuses a loop_guard of 1 in the config", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(`${sandbox.home}/.config/harness/config.jsonc`, '{ "loop_guard": 1 }');
  const out = await sandbox.run(["-p", "hi", "--base-url", "http://127.0.0.1:9/v1"]);
  assertEquals(out.code, 2);
  assert(
    out.stderr.includes('"loop_guard": expected 0 (off) or a whole number from 2'),
    out.stderr,
  );
});

Deno.test("harness -p stops a model that repeats a guarded call three more times", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "alpha\n");
  await using server = startFakeLlmServer(
    Array.from({ length: 5 }, () => reply().toolCall("read_file", { path: "a.txt" })),
  );
  const out = await sandbox.run(printArgs(server.baseUrl));
  assertEquals(out.code, 1, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals([json.stop_reason, json.repeated_calls], ["error", 3]);
  assert(String(json.error).includes('"read_file" 3 times'), String(json.error));
  assertEquals(server.requests.length, 5);
});
