// Tests against a real model server, run only when HARNESS_E2E_BASE_URL is set (for example
// http://127.0.0.1:11434/v1 with HARNESS_E2E_MODEL=qwen3). They check the whole path with a
// real model: an answer, and a tool call that runs in the sandbox.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

const baseUrl = Deno.env.get("HARNESS_E2E_BASE_URL");
const model = Deno.env.get("HARNESS_E2E_MODEL");
const ignore = baseUrl === undefined;
const target = [
  ...(baseUrl ? ["--base-url", baseUrl] : []),
  ...(model ? ["--model", model] : []),
];

Deno.test({
  name: "real server: harness -p answers",
  ignore,
  async fn() {
    await using sandbox = await cliSandbox();
    const out = await sandbox.run(["-p", "Reply with the single word OK.", ...target]);
    assertEquals(out.code, 0, out.stderr);
    assert(out.stdout.trim().length > 0);
  },
});

Deno.test({
  name: "real server: the model calls a tool that runs in the sandbox",
  ignore,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/secret_word.txt`, "pineapple\n");
    const out = await sandbox.run([
      "-p",
      "Use the read_file tool to read secret_word.txt, then tell me the word in it.",
      ...target,
      "--yes",
      "--allow-read=.",
      "--output-format",
      "json",
    ]);
    assertEquals(out.code, 0, out.stderr);
    const json = lastJsonLine(out.stdout);
    const calls = json.tool_calls as { name: string; result: { success: boolean } }[];
    assert(calls.some((c) => c.name === "read_file" && c.result.success), out.stdout);
    assert(String(json.result).toLowerCase().includes("pineapple"), String(json.result));
  },
});
