// End-to-end tests of harness against local model servers: the real CLI as a subprocess
// talking to the scripted Ollama server (native /api/chat NDJSON) and to the scripted
// OpenAI-compatible server playing llama.cpp, LM Studio or vLLM quirks (tool calls written
// as text, short Mistral ids, sloppy arguments, a model repeating a failing call).

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type FakeOllama, ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { looksLikeOllamaRoot } from "../../src/app/provider_openers.ts";

interface JsonCall {
  id: string;
  name: string;
  arguments: unknown;
  result: { success: boolean; data?: string; error_type: string; error_message?: string };
}

/** The /api/chat request bodies the fake Ollama server received. */
function chatBodies(server: FakeOllama): Record<string, unknown>[] {
  return server.requests.filter((r) => r.path === "/api/chat").map((r) => r.body ?? {});
}

// The port-11434 test listens on 127.0.0.2, not 127.0.0.1: other test files running at the
// same time (default_model_test, openai_compat_errors_test) rely on nothing listening on
// 127.0.0.1:11434, where harness looks for Ollama when no server is given.
const OLLAMA_HOST = "127.0.0.2";

/** Whether 127.0.0.2:11434 (Ollama's port) can be bound here (Linux routes all of 127/8). */
function ollamaPortFree(): boolean {
  try {
    Deno.listen({ hostname: OLLAMA_HOST, port: 11434 }).close();
    return true;
  } catch {
    return false;
  }
}

Deno.test("harness -p --provider ollama runs an id-less tool call and sends num_ctx and tool_name", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/notes.txt`, "alpha\nbeta\n");
  await using server = startFakeOllama({
    models: [{ name: "qwen3", contextLength: 40960, capabilities: ["completion", "tools"] }],
  });
  server.script(
    ollamaReply().thinking("Read it.").toolCall("read_file", { path: "notes.txt" }).done("stop", {
      prompt: 300,
      completion: 12,
    }),
    ollamaReply().text("Two ", "lines.").done("stop", { prompt: 350, completion: 4 }),
  );
  const out = await sandbox.run([
    "-p",
    "read notes.txt",
    "--provider",
    "ollama",
    "--base-url",
    server.url,
    "--model",
    "qwen3",
    "--num-ctx",
    "16384",
    "--output-format",
    "json",
    "--yes",
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(json.result, "Two lines.");
  assertEquals(json.stop_reason, "answered");
  assertEquals(json.iterations, 2);
  assertEquals(json.usage, {
    prompt_tokens: 650,
    completion_tokens: 16,
    prompt_tokens_processed: 650,
    prompt_tokens_reused: 0,
  });
  const calls = json.tool_calls as JsonCall[];
  assertEquals(calls.length, 1);
  assertEquals(calls[0]?.name, "read_file");
  assertEquals(calls[0]?.result.success, true);
  match(calls[0]!.result.data!, /1: alpha/);
  assert(calls[0]!.id !== "", "an id was minted for the id-less call");

  const bodies = chatBodies(server);
  assertEquals(bodies.length, 2);
  // The model knows 40960 tokens; --num-ctx caps it.
  for (const body of bodies) assertEquals(body.options, { num_ctx: 16384 });
  assertEquals(bodies[0]?.stream, true);
  assert(Array.isArray(bodies[0]?.tools) && bodies[0].tools.length > 0, "tools are offered");
  const messages = bodies[1]?.messages as Record<string, unknown>[];
  const assistant = messages.find((m) => Array.isArray(m.tool_calls));
  const call = (assistant?.tool_calls as { id?: string; function: Record<string, unknown> }[])[0];
  assertEquals(call?.function.name, "read_file");
  assertEquals(call?.function.arguments, { path: "notes.txt" }, "arguments go back as an object");
  const tool = messages.find((m) => m.role === "tool");
  assertEquals(tool?.tool_name, "read_file");
  assertEquals(tool?.tool_call_id, call?.id);
  assertEquals(JSON.parse(String(tool?.content)).success, true);
  assertEquals(server.problems, []);
  assert(
    server.requests.some((r) => r.path === "/api/show" && r.body?.model === "qwen3"),
    "the model was inspected",
  );
});

Deno.test("harness -p --provider ollama uses the model's context length when it is below --num-ctx", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeOllama({
    models: [{ name: "small", contextLength: 4096, capabilities: ["completion", "tools"] }],
  });
  server.script(ollamaReply().text("ok").done());
  // No --model: the only model /api/tags lists is used. No --num-ctx: the default cap 8192.
  const out = await sandbox.run(["-p", "hi", "--provider", "ollama", "--base-url", server.url]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout, "ok\n");
  const [body] = chatBodies(server);
  assertEquals(body?.model, "small");
  assertEquals(body?.options, { num_ctx: 4096 });
});

Deno.test({
  name: "harness -p picks Ollama's native API for a base URL on port 11434 without /v1",
  ignore: !ollamaPortFree(),
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeOllama();
    server.script(ollamaReply().text("native").done());
    // Forward Ollama's well-known port to the scripted server, which records the requests.
    const proxy = Deno.serve(
      { hostname: OLLAMA_HOST, port: 11434, onListen() {} },
      async (req) => {
        const url = new URL(req.url);
        return await fetch(`${server.url}${url.pathname}${url.search}`, {
          method: req.method,
          headers: req.headers,
          ...(req.method === "POST" ? { body: await req.text() } : {}),
        });
      },
    );
    try {
      const out = await sandbox.run([
        "-p",
        "hi",
        "--base-url",
        `http://${OLLAMA_HOST}:11434`,
        "--model",
        "qwen3",
      ]);
      assertEquals(out.code, 0, out.stderr);
      assertEquals(out.stdout, "native\n");
      assertEquals(chatBodies(server).length, 1);
      assertEquals(chatBodies(server)[0]?.options, { num_ctx: 8192 });
    } finally {
      await proxy.shutdown();
    }
  },
});

Deno.test("looksLikeOllamaRoot() accepts only port 11434 without a path", () => {
  assert(looksLikeOllamaRoot("http://127.0.0.1:11434"));
  assert(looksLikeOllamaRoot("http://localhost:11434/"));
  assert(!looksLikeOllamaRoot("http://127.0.0.1:11434/v1"));
  assert(!looksLikeOllamaRoot("http://127.0.0.1:8080"));
  assert(!looksLikeOllamaRoot("http://127.0.0.1:1234/v1"));
  assert(!looksLikeOllamaRoot("http://h:11434/v1"));
  assert(!looksLikeOllamaRoot("http://h:8080"));
  assert(!looksLikeOllamaRoot("not a url"));
});

// A model without "tools" is a usage error: exit 2 before any chat request is made.
Deno.test("harness -p exits 2 before chatting when the Ollama model lacks the tools capability", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeOllama({
    models: [{ name: "gemma", contextLength: 8192, capabilities: ["completion"] }],
  });
  const out = await sandbox.run([
    "-p",
    "hi",
    "--provider",
    "ollama",
    "--base-url",
    server.url,
    "--model",
    "gemma",
  ]);
  match(out.stderr, /Model "gemma" does not support tools: .*"tools" \(ollama show gemma\)/);
  assertEquals(chatBodies(server).length, 0);
  assertEquals(out.code, 2, out.stderr);
});

Deno.test("harness -p exits 1 with the message of an Ollama error line mid-stream", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeOllama();
  server.script(
    ollamaReply().text("Partial ").errorLine("model runner has unexpectedly stopped").done(),
  );
  const out = await sandbox.run([
    "-p",
    "hi",
    "--provider",
    "ollama",
    "--base-url",
    server.url,
    "--model",
    "qwen3",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 1, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(json.stop_reason, "error");
  match(String(json.error), /model runner has unexpectedly stopped/);
  match(String(json.error), new RegExp(`Model server "${server.url}"`));
  assert(!out.stderr.includes("    at "), "no stack trace");
});

/** A Hermes/Qwen answer: reasoning, a sentence, then the call as text. */
const HERMES_CALL = "<think>The user wants the folder.</think>Let me check the folder.\n" +
  '<tool_call>\n{"name": "get_working_directory", "arguments": {}}\n</tool_call>';

Deno.test("harness -p runs a Hermes <tool_call> written as text and shows no markup", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().text(HERMES_CALL, { chunks: 9 }).finish("stop"),
    reply().text("<think>Got it.</think>You are in the workspace.", { chunks: 4 }),
  ]);
  const out = await sandbox.run([
    "-p",
    "where am I",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "stream-json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const events = out.stdout.trim().split("\n").map((line) => JSON.parse(line));
  const shown = events.filter((e) => e.type === "text").map((e) => e.text).join("");
  for (const markup of ["<tool_call>", "</tool_call>", "<think>", "</think>", '"name"']) {
    assert(!shown.includes(markup), `streamed text has ${markup}: ${shown}`);
  }
  assert(shown.includes("Let me check the folder."), shown);
  const final = events.at(-1);
  assertEquals(final.result, "You are in the workspace.");
  assertEquals(final.stop_reason, "answered");
  const calls = final.tool_calls as JsonCall[];
  assertEquals(calls.map((c) => [c.name, c.result.success]), [["get_working_directory", true]]);
  match(calls[0]!.result.data!, /harness_e2e_/);
  // The call goes back as a structured call; the visible text without markup or reasoning.
  const assistant = server.requests[1]?.messages.find((m) => m.role === "assistant");
  assertEquals(assistant?.content, "Let me check the folder.");
  assertEquals(assistant?.tool_calls?.[0]?.function.name, "get_working_directory");
  assertEquals(server.pairingErrors, []);
});

Deno.test("harness -p runs a Mistral [TOOL_CALLS] call written as text", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "one\ntwo\n");
  await using server = startFakeLlmServer([
    reply().text('[TOOL_CALLS]read_file[ARGS]{"path": "a.txt"}', { chunks: 5 }).finish("stop"),
    reply().text("It says one, two."),
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
    "--yes",
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(json.result, "It says one, two.");
  const calls = json.tool_calls as JsonCall[];
  assertEquals(calls.map((c) => c.name), ["read_file"]);
  match(calls[0]!.result.data!, /2: two/);
  const assistant = server.requests[1]?.messages.find((m) => m.role === "assistant");
  assert(!String(assistant?.content ?? "").includes("[TOOL_CALLS]"), "markup is not sent back");
  assertEquals(server.pairingErrors, []);
});

Deno.test("harness -p --no-text-tool-calls keeps tool-call markup as text and runs nothing", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text(HERMES_CALL, { chunks: 9 })]);
  const out = await sandbox.run([
    "-p",
    "where am I",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--no-text-tool-calls",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(json.result, HERMES_CALL);
  assertEquals(json.tool_calls, []);
  assertEquals(server.requests.length, 1);
});

Deno.test("harness -p --tool-call-ids short sends 9-alphanumeric ids for native and text calls", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("get_current_time", {}, { id: "chatcmpl-tool-8d850927cf39be3c" }),
    reply().text("[TOOL_CALLS]get_working_directory[ARGS]{}").finish("stop"),
    reply().text("Done."),
  ]);
  const out = await sandbox.run([
    "-p",
    "time and place",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--tool-call-ids",
    "short",
  ]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout, "Done.\n");
  const last = server.requests[2]!.messages;
  const callIds = last.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
  const resultIds = last.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
  assertEquals(callIds.length, 2);
  for (const id of callIds) match(id, /^[A-Za-z0-9]{9}$/);
  assertEquals(resultIds, callIds);
  assertEquals(server.pairingErrors, []);
});

Deno.test("harness -p repairs sloppy arguments (trailing comma, number as string) end to end", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/notes.txt`, "alpha\nbeta\ngamma\n");
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", '{"path": "notes.txt", "offset": "2", "limit": "1",}', {
      split: 4,
    }),
    reply().text("Line 2 is beta."),
  ]);
  const out = await sandbox.run([
    "-p",
    "line 2",
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
  const calls = json.tool_calls as JsonCall[];
  assertEquals(calls[0]?.result.success, true, JSON.stringify(calls[0]));
  assertEquals(calls[0]?.arguments, { path: "notes.txt", offset: 2, limit: 1 });
  match(calls[0]!.result.data!, /^2: beta$/m);
  assert(!calls[0]!.result.data!.includes("1: alpha"));
  assertEquals(json.result, "Line 2 is beta.");
});

Deno.test("harness -p --provider ollama repairs numbers sent as strings in argument objects", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/notes.txt`, "alpha\nbeta\n");
  await using server = startFakeOllama();
  server.script(
    ollamaReply().toolCall("read_file", { path: "notes.txt", offset: "2" }).done(),
    ollamaReply().text("beta").done(),
  );
  const out = await sandbox.run([
    "-p",
    "line 2",
    "--provider",
    "ollama",
    "--base-url",
    server.url,
    "--model",
    "qwen3",
    "--output-format",
    "json",
    "--yes",
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const calls = lastJsonLine(out.stdout).tool_calls as JsonCall[];
  assertEquals(calls[0]?.result.success, true, JSON.stringify(calls[0]));
  match(calls[0]!.result.data!, /^2: beta$/m);
});

// Current behaviour: the third identical failure ends the turn as an error (exit 1); the 4th
// scripted reply is never requested.
Deno.test("harness -p stops the turn after three identical failing calls", async () => {
  await using sandbox = await cliSandbox();
  const missing = () => reply().toolCall("read_file", { path: "missing.txt" });
  await using server = startFakeLlmServer([
    missing(),
    missing(),
    missing(),
    reply().text("never requested"),
  ]);
  const out = await sandbox.run([
    "-p",
    "read missing.txt",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    "--yes",
    "--allow-read=.",
  ]);
  assertEquals(out.code, 1, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(json.stop_reason, "error");
  match(String(json.error), /called "read_file" 3 times with the same failing arguments/);
  const calls = json.tool_calls as JsonCall[];
  // The model learns it too, in the last result, for when the user continues.
  match(String(calls.at(-1)?.result.error_message), /stop repeating it/);
  assertEquals(calls.length, 3);
  assert(calls.every((c) => !c.result.success));
  assertEquals(server.requests.length, 3);
  assertEquals(server.pairingErrors, []);
});

Deno.test("harness -p reads the text tool-call formats llama-server's /props chat template names", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.md`, "alpha\n");
  const glm = "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_value>\n" +
    "</tool_call>";
  const llama = 'Like {"name": "read_file", "parameters": {"path": "b.md"}}';
  await using server = startFakeLlmServer([
    reply().text(glm, { chunks: 4 }),
    reply().text(llama),
  ], {
    routes: {
      "/props": {
        default_generation_settings: { n_ctx: 32768 },
        total_slots: 1,
        chat_template: "{{ '<tool_call>' + tc.name }}<arg_key>{{ k }}</arg_key>",
      },
    },
  });
  const out = await sandbox.run([
    "-p",
    "read a.md",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
    "--yes",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals((json.tool_calls as { name: string }[]).map((c) => c.name), ["read_file"]);
  // GLM's template names no Llama JSON: the object in prose stays the answer.
  assertEquals(json.result, llama);
});
