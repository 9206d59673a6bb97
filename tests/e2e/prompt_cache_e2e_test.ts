// End-to-end, against the fake llama-server (one slot that reuses the prefix a request shares
// with the previous one, refusing over its window as llama-server does): a 29 KB read on a
// model of 2 characters per token with an 8k window finishes the turn, with and without the
// curator, and the system prompt and tool schemas are byte-identical across turns and across
// sessions with the same tools.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { type RecordedRequest, reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

/** A model that reads big.ts, answers the curator with a range, then says it is done. */
function readsBigFile(request: RecordedRequest) {
  const last = request.messages.at(-1);
  const content = typeof last?.content === "string" ? last.content : "";
  if (last?.role === "tool" && content.includes("Choose the lines that matter now")) {
    return reply().text('{"ranges": [[10, 60]]}');
  }
  if (last?.role === "user") return reply().toolCall("read_file", { path: "big.ts" });
  return reply().text("Done.");
}

/** About 29 KB of TypeScript: 190 small functions. */
function bigFile(): string {
  const out: string[] = [];
  for (let f = 0; f < 190; f++) {
    out.push(`export function f${f}(v: number): number {`, `  return v + ${f}; // add ${f}`, `}`);
  }
  const text = out.join("\n");
  assert(text.length > 8_000 && text.length < 30_000, String(text.length));
  return `${text}\n${"// padding line to reach 29 KB of source text\n".repeat(340)}`;
}

for (const curator of [true, false]) {
  Deno.test(
    `harness -p finishes a turn reading 29 KB on a 2-chars-per-token model with an 8k window${
      curator ? "" : " (--no-curator)"
    }`,
    async () => {
      await using sandbox = await cliSandbox();
      const text = bigFile();
      assert(text.length >= 29_000 && text.length < 31_000, String(text.length));
      await Deno.writeTextFile(`${sandbox.cwd}/big.ts`, text);
      await using server = startFakeLlmServer(readsBigFile, {
        llamaServer: { charsPerToken: 2, window: 8192 },
      });
      const out = await sandbox.run([
        "-p",
        "read big.ts and tell me what it holds",
        "--base-url",
        server.baseUrl,
        "--model",
        "m",
        "--output-format",
        "json",
        "--yes",
        "--allow-read=.",
        ...(curator ? [] : ["--no-curator"]),
      ]);
      assertEquals(out.code, 0, out.stderr);
      const json = lastJsonLine(out.stdout);
      assertEquals(json.stop_reason, "answered");
      assertEquals(json.result, "Done.");
      // Counted right the first time: the server refused nothing.
      assertEquals(server.cache!.log.filter((c) => c.refused), []);
      const usage = json.usage as {
        prompt_tokens: number;
        prompt_tokens_processed: number;
        prompt_tokens_reused: number;
      };
      assertEquals(
        usage.prompt_tokens_processed + usage.prompt_tokens_reused,
        usage.prompt_tokens,
      );
      assert(usage.prompt_tokens_reused > 0, JSON.stringify(usage));
    },
  );
}

Deno.test("harness -p sends the same system prompt and tool schemas in every request and session", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "alpha\n");
  const session = async () => {
    await using server = startFakeLlmServer(
      (request) =>
        request.messages.at(-1)?.role === "user"
          ? reply().toolCall("read_file", { path: "a.txt" })
          : reply().text("It says alpha."),
      { llamaServer: { charsPerToken: 4, window: 32768 } },
    );
    const out = await sandbox.run([
      "-p",
      "what does a.txt say?",
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "--allow-read=.",
    ]);
    assertEquals(out.code, 0, out.stderr);
    return server.requests.map((r) => ({
      system: JSON.stringify(r.messages[0]),
      tools: JSON.stringify(r.tools),
    }));
  };
  const dayBefore = new Date().toISOString().slice(0, 10);
  const first = await session();
  const second = await session();
  const dayAfter = new Date().toISOString().slice(0, 10);
  assertEquals(first.length, 2);
  // Across turns: byte for byte.
  assertEquals(first[1], first[0]);
  // Across sessions with the same tools: the tools byte for byte, and the system prompt too
  // (it names the date, which may have changed if the runs straddled midnight).
  assertEquals(second.map((r) => r.tools), first.map((r) => r.tools));
  const undated = (s: string) => dayBefore === dayAfter ? s : s.replace(/\d{4}-\d\d-\d\d/, "");
  assertEquals(second.map((r) => undated(r.system)), first.map((r) => undated(r.system)));
});
