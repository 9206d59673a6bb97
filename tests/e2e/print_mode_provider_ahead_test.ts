// The provider opens as soon as the settings are loaded, while the conversation's modules load
// (src/cli/run_cli.ts), and the run takes that provider: the server is asked for its window
// once per start, by -p and by the REPL, never a second time by the run itself.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";

/**
 * A scripted server that counts the GETs it receives, by path. It states no window, so every
 * window probe runs to its end.
 */
function countingServer(answers: number) {
  const gets: Record<string, number> = {};
  const server = startFakeLlmServer(
    Array.from({ length: answers }, () => reply().text("Done.")),
    {
      handle: (req) => {
        const path = new URL(req.url).pathname;
        if (req.method === "GET") gets[path] = (gets[path] ?? 0) + 1;
        return Promise.resolve(undefined);
      },
    },
  );
  return { server, gets };
}

Deno.test("harness -p asks the server for its window once, then sends its one request", async () => {
  await using sandbox = await cliSandbox();
  const { server, gets } = countingServer(1);
  await using _ = server;
  const out = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout, "Done.\n");
  // /props once: the subagents' slot layout is read from the window probe's answer.
  assertEquals([gets["/props"], gets["/api/ps"], gets["/api/v0/models"]], [1, 1, 1]);
  assertEquals(server.requests.length, 1);
});

Deno.test("the REPL asks the server for its window once, with the model list", async () => {
  await using sandbox = await cliSandbox();
  const { server, gets } = countingServer(1);
  await using _ = server;
  // No --model: the server's only model is used, listed once by the provider opened ahead.
  const out = await sandbox.run(["--base-url", server.baseUrl], { stdin: "hi\n" });
  assertEquals(out.code, 0, out.stderr);
  // /props once: the subagents' slot layout is read from the window probe's answer.
  assertEquals([gets["/props"], gets["/api/ps"], gets["/api/v0/models"]], [1, 1, 1]);
  // The model list once: the window probe reads vLLM's max_model_len from the same answer.
  assertEquals(gets["/v1/models"], 1, JSON.stringify(gets));
  assertEquals(server.requests.length, 1);
});

Deno.test("harness -p without --model reads vLLM's window from the one model list it asks for", async () => {
  await using sandbox = await cliSandbox();
  const gets: Record<string, number> = {};
  await using server = startFakeLlmServer([reply().text("Done.")], {
    routes: {
      "/v1/models": {
        object: "list",
        data: [{ id: "Qwen/Qwen3-8B", object: "model", owned_by: "vllm", max_model_len: 32768 }],
      },
    },
    handle: (req) => {
      const path = new URL(req.url).pathname;
      if (req.method === "GET") gets[path] = (gets[path] ?? 0) + 1;
      return Promise.resolve(undefined);
    },
  });
  const out = await sandbox.run([
    "-p",
    "hi",
    "--base-url",
    server.baseUrl,
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(server.requests[0]?.model, "Qwen/Qwen3-8B");
  // The window came from the list: no note that the server does not state one.
  assertEquals(out.stderr.includes("does not state its context window"), false, out.stderr);
  assertEquals(gets["/v1/models"], 1, JSON.stringify(gets));
});
