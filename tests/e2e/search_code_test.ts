// End-to-end: `harness -p` against a scripted model server that also lists an embedding model
// and serves /v1/embeddings. search_code is offered (found, not configured), the model's call
// finds the definition, and `embedding_model: "off"` takes the tool away; `harness tool
// search_code` uses a configured embedding server.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import {
  type EmbeddingRequest,
  embeddingRoutes,
  startFakeEmbeddingServer,
} from "../helpers/fake_embedding_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

const QUERY = "wait longer before trying a failed request again";

async function workspace(cwd: string) {
  await Deno.mkdir(`${cwd}/src`, { recursive: true });
  await Deno.writeTextFile(
    `${cwd}/src/retry.ts`,
    "// Waits longer after each failed request before trying again.\n" +
      "export function backoffDelay(attempt: number): number {\n  return 2 ** attempt * 100;\n}\n",
  );
  await Deno.writeTextFile(
    `${cwd}/src/parse.ts`,
    "/** Splits a line of comma separated values into fields. */\n" +
      "export function splitFields(line: string): string[] {\n  return line.split(',');\n}\n",
  );
}

Deno.test("harness -p offers search_code when the server has an embedding model, and it finds code", async () => {
  await using sandbox = await cliSandbox();
  await workspace(sandbox.cwd);
  const embedded: EmbeddingRequest[] = [];
  await using server = startFakeLlmServer([
    reply().toolCall("search_code", { query: QUERY }),
    reply().text("backoffDelay in src/retry.ts."),
  ], { handle: embeddingRoutes({ models: ["m", "nomic-embed-text"] }, embedded) });
  const out = await sandbox.run([
    "-p",
    "where is the retry delay?",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const offered = (server.requests[0]?.tools ?? []) as { function: { name: string } }[];
  assert(offered.some((t) => t.function.name === "search_code"), JSON.stringify(offered));
  const json = lastJsonLine(out.stdout) as {
    tool_calls: { name: string; result: { success: boolean; data: string } }[];
  };
  const [call] = json.tool_calls;
  assertEquals([call?.name, call?.result.success], ["search_code", true]);
  match(call?.result.data ?? "", /\nsrc\/retry.ts:2-4: export function backoffDelay/);
  // Both definitions and the query were embedded by the found model.
  assertEquals(embedded.map((r) => [r.path, r.model, r.texts.length]), [
    ["/v1/embeddings", "nomic-embed-text", 2],
    ["/v1/embeddings", "nomic-embed-text", 1],
  ]);
});

Deno.test("harness -p does not offer search_code with embedding_model off", async () => {
  await using sandbox = await cliSandbox();
  await workspace(sandbox.cwd);
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.home}/.config/harness/config.jsonc`,
    '{ "embedding_model": "off" }',
  );
  const embedded: EmbeddingRequest[] = [];
  await using server = startFakeLlmServer([reply().text("ok")], {
    handle: embeddingRoutes({ models: ["m", "nomic-embed-text"] }, embedded),
  });
  const out = await sandbox.run([
    "-p",
    "hi",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const offered = (server.requests[0]?.tools ?? []) as { function: { name: string } }[];
  assert(offered.some((t) => t.function.name === "code_map"), JSON.stringify(offered));
  assert(!offered.some((t) => t.function.name === "search_code"));
  assertEquals(embedded, []);
});

Deno.test("harness tool search_code uses the configured embedding server, without a model", async () => {
  await using sandbox = await cliSandbox();
  await workspace(sandbox.cwd);
  await using embeddings = startFakeEmbeddingServer();
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.home}/.config/harness/config.jsonc`,
    JSON.stringify({ embedding_model: "nomic-embed-text", embedding_base_url: embeddings.root }),
  );
  const out = await sandbox.run([
    "tool",
    "search_code",
    JSON.stringify({ query: "split comma separated values into fields", limit: 1 }),
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout) as { success: boolean; data: string };
  assert(result.success, out.stdout);
  match(
    result.data,
    /^1 definition closest to .*\nsrc\/parse.ts:2-4: export function splitFields/,
  );
  assertEquals(embeddings.requests.map((r) => r.path), ["/api/embed", "/api/embed"]);
});

Deno.test("harness doctor reports the embedding model search_code would use", async () => {
  await using sandbox = await cliSandbox();
  const doctorReplies = () => [
    reply().toolCall("get_current_time", { timezone: "UTC" }).usage(150, 20),
    reply().text("Line 61: the value is 61.\n".repeat(4), { chunks: 8 }).usage(500, 64),
  ];
  const embedded: EmbeddingRequest[] = [];
  await using server = startFakeLlmServer(doctorReplies(), {
    handle: embeddingRoutes({ models: ["m", "nomic-embed-text"] }, embedded),
  });
  const out = await sandbox.run(["doctor", "--json", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(lastJsonLine(out.stdout).embeddings, {
    status: "ok",
    model: "nomic-embed-text",
    baseUrl: server.baseUrl,
    dimensions: 256,
  });
  await using chatOnly = startFakeLlmServer(doctorReplies(), { models: ["m"] });
  const none = await sandbox.run(["doctor", "--base-url", chatOnly.baseUrl, "--model", "m"]);
  assertEquals(none.code, 0, none.stderr);
  match(none.stdout, /Embeddings: +none found: search_code is not offered/);
});
