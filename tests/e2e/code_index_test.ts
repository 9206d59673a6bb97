// End-to-end: `harness index`, the code tools through `harness tool` and `-p` against the
// scripted model server, and the graph following a file the model writes.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

function toolNames(tools: unknown[] | undefined): string[] {
  return (tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
}

async function writeProject(cwd: string): Promise<void> {
  await Deno.mkdir(`${cwd}/src`, { recursive: true });
  await Deno.writeTextFile(
    `${cwd}/src/billing.py`,
    "class Invoice:\n    def total(self):\n        return compute_total(self)\n\n\ndef compute_total(invoice):\n    return 0\n",
  );
  await Deno.writeTextFile(
    `${cwd}/src/main.go`,
    "package main\n\nfunc main() { Run() }\n\nfunc Run() {}\n",
  );
}

Deno.test("harness index builds the graph and prints counts; a second run parses nothing", async () => {
  await using sandbox = await cliSandbox();
  await writeProject(sandbox.cwd);
  const first = await sandbox.run(["index", "--allow-read=."]);
  assertEquals(first.code, 0, first.stderr);
  match(
    first.stdout,
    /^Indexed 2 files in \d+\.\d s \(2 parsed, 0 removed, 0 skipped\): 5 definitions, \d+ references\n$/,
  );
  const second = await sandbox.run(["index", "--allow-read=."]);
  match(second.stdout, /\(0 parsed, 0 removed, 0 skipped\)/);
});

Deno.test("harness index without a read grant exits 2 and says which flag", async () => {
  await using sandbox = await cliSandbox();
  const out = await sandbox.run(["index"]);
  assertEquals(out.code, 2);
  match(out.stderr, /--allow-read=\./);
});

Deno.test("harness tool find_definition answers from the graph", async () => {
  await using sandbox = await cliSandbox();
  await writeProject(sandbox.cwd);
  const out = await sandbox.run([
    "tool",
    "find_definition",
    '{"name": "compute_total"}',
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  assertEquals(
    result.data,
    '1 match for "compute_total"\nsrc/billing.py:6: def compute_total(invoice):',
  );
});

Deno.test("harness -p: the model calls code_map and find_references; write_file updates the graph", async () => {
  await using sandbox = await cliSandbox();
  await writeProject(sandbox.cwd);
  await using server = startFakeLlmServer([
    reply().toolCall("code_map", {}),
    reply().toolCall("write_file", {
      path: "src/extra.py",
      content: "def added_later():\n    return compute_total(1)\n",
    }),
    reply().toolCall("find_references", { name: "compute_total" }),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "-p",
    "map the code",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    "--yes",
    "--allow-read=.",
    "--allow-write=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  const calls = json.tool_calls as { name: string; result: { success: boolean; data: string } }[];
  assertEquals(calls.map((c) => c.name), ["code_map", "write_file", "find_references"]);
  assert(calls[0]!.result.success);
  match(calls[0]!.result.data, /src\/billing.py\n(.*\n)* {2}6-7: def compute_total\(invoice\):/);
  match(calls[2]!.result.data, /^2 references to "compute_total"/);
  match(calls[2]!.result.data, /src\/extra.py:2: return compute_total\(1\)/);
  const offered = toolNames(server.requests[0]?.tools);
  assert(offered.includes("code_map") && offered.includes("find_definition"), offered.join());
});

Deno.test("harness -p with no read grant does not offer the code tools", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("ok")]);
  const out = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals(out.code, 0, out.stderr);
  const offered = toolNames(server.requests[0]?.tools);
  assert(!offered.includes("code_map"), offered.join());
});
