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

/** A file of 606 lines: too long to fit comfortably in the 8,192-token window assumed. */
async function writeLongFile(cwd: string): Promise<void> {
  const body = Array.from({ length: 600 }, (_, i) => `  const v${i} = ${i};`).join("\n");
  await Deno.writeTextFile(
    `${cwd}/long.ts`,
    `export function setup() {\n${body}\n}\n\nexport function teardown() {\n  return 0;\n}\n`,
  );
}

Deno.test("harness -p: read_file of a long file returns the outline and the curated sections", async () => {
  await using sandbox = await cliSandbox();
  await writeLongFile(sandbox.cwd);
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "long.ts" }),
    reply().text('{"ranges": [[604, 606]]}').usage(700, 9),
    reply().text("teardown returns 0").usage(50, 5),
  ]);
  const out = await sandbox.run([
    "-p",
    "what does teardown return?",
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
  const calls = json.tool_calls as { result: { data: string } }[];
  const data = calls[0]!.result.data;
  match(
    data,
    /^Outline of long.ts \(606 lines\):\n {2}1-602: function setup\n {2}604-606: function teardown\n/,
  );
  match(
    data,
    /lines 604-606\):\n604: export function teardown\(\) \{\n605: {3}return 0;\n606: \}\n\[Showed lines 604-606 of 606/,
  );
  assert(!data.includes("const v100"), "the middle of setup is not shown");
  // The side request repeats the conversation (same tools, same messages) and answers the
  // call with the outline and a question; the file itself is not sent.
  const [first, side, last] = server.requests;
  assertEquals(side!.tools, first!.tools);
  assertEquals(side!.messages.slice(0, first!.messages.length), first!.messages);
  const question = side!.messages.at(-1)!;
  assertEquals(question.role, "tool");
  match(question.content as string, /Choose the lines that matter now/);
  assert(!(question.content as string).includes("const v100"));
  // The conversation's next request differs from the side request only in that result.
  assertEquals(last!.messages.slice(0, -1), side!.messages.slice(0, -1));
  const outline = data.slice(0, data.indexOf("Sections relevant"));
  assert(JSON.parse(question.content as string).data.startsWith(outline), outline);
  // The side request's tokens count in the run's usage.
  const usage = JSON.stringify(json.usage);
  assert(/7\d\d/.test(usage), usage);
});

Deno.test("harness -p --no-curator: read_file returns the long file whole", async () => {
  await using sandbox = await cliSandbox();
  await writeLongFile(sandbox.cwd);
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "long.ts" }),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "-p",
    "read it",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    "--yes",
    "--allow-read=.",
    "--no-curator",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const calls = lastJsonLine(out.stdout).tool_calls as { result: { data: string } }[];
  match(calls[0]!.result.data, /^ {2}1: export function setup\(\) \{\n/);
  assert(calls[0]!.result.data.includes("const v100"));
  assertEquals(server.requests.length, 2);
});

Deno.test("code tools and search work with a read grant narrower than the workspace (ignore files above it unread)", async () => {
  await using sandbox = await cliSandbox();
  await writeProject(sandbox.cwd);
  await Deno.mkdir(`${sandbox.cwd}/.git/info`, { recursive: true });
  await Deno.writeTextFile(`${sandbox.cwd}/.git/info/exclude`, "*.log\n");
  await Deno.writeTextFile(`${sandbox.cwd}/.gitignore`, "build/\n");
  const calls: [string, string][] = [
    ["code_map", "{}"],
    ["find_definition", '{"name":"compute_total"}'],
    // ripgrep and fd in the command sandbox, with the grant's folders as their roots.
    ["grep_search", '{"pattern":"compute_total"}'],
    ["glob", '{"pattern":"**/*.go","path":"src"}'],
  ];
  for (const [tool, args] of calls) {
    const out = await sandbox.run(["tool", "--allow-read=src", tool, args]);
    const result = JSON.parse(out.stdout);
    assertEquals(result.error_message ?? null, null, `${tool}: ${out.stdout}`);
    assertEquals(result.success, true, tool);
  }
});

Deno.test("the built-in grep_search and glob (no rg or fd on PATH) search a read grant narrower than the workspace", async () => {
  await using sandbox = await cliSandbox();
  await writeProject(sandbox.cwd);
  await Deno.mkdir(`${sandbox.cwd}/lib`);
  await Deno.writeTextFile(`${sandbox.cwd}/lib/other.py`, "compute_total = 1\n");
  await Deno.writeTextFile(`${sandbox.cwd}/.gitignore`, "build/\n");
  // A PATH with deno only: grep_search and glob use the built-in search.
  const bin = `${sandbox.home}/bin`;
  await Deno.mkdir(bin);
  await Deno.symlink(Deno.execPath(), `${bin}/deno`);
  const run = async (tool: string, args: string) => {
    const out = await sandbox.run(["tool", "--allow-read=src", tool, args], { env: { PATH: bin } });
    const result = JSON.parse(out.stdout);
    assertEquals(result.error_message ?? null, null, `${tool}: ${out.stdout}`);
    return result.data as string;
  };
  // Only the granted folder is searched: lib/ (outside the grant) is not, and not refused.
  assertEquals(
    await run("grep_search", '{"pattern":"compute_total"}'),
    '2 matching lines in 1 files for "compute_total" (2 files searched):\n' +
      "src/billing.py:3:         return compute_total(self)\nsrc/billing.py:6: def compute_total(invoice):",
  );
  match(await run("grep_search", '{"pattern":"nowhere"}'), /^No matches for "nowhere" in 2 files/);
  assertEquals(
    await run("glob", '{"pattern":"**/*.go","path":"src"}'),
    '1 files match "**/*.go" in "src":\nsrc/main.go',
  );
});
