// `harness sessions import` and `export` end to end: other agents' transcripts become sessions
// that `--continue` goes on with in the folder they were recorded in; an export imported into
// another log exports to the same bytes (its system prompt and checkpoint records kept as inert
// records); a broken transcript is refused naming its line.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

const CORPUS = join(dirname(fileURLToPath(import.meta.url)), "../fixtures/transcripts");

/** A Claude Code transcript recorded in `cwd`: a read with its result, then a call cut off. */
function claudeTranscript(cwd: string): string {
  const line = (uuid: string, parentUuid: string | null, type: string, content: unknown) =>
    JSON.stringify({
      parentUuid,
      isSidechain: false,
      userType: "external",
      cwd,
      sessionId: "7f1c2d3e-0000-4000-8000-000000000001",
      version: "2.0.14",
      type,
      uuid,
      timestamp: "2025-09-01T10:00:00.000Z",
      message: { role: type, content },
    });
  return [
    JSON.stringify({ type: "summary", summary: "Read the notes", leafUuid: "a2" }),
    line("u1", null, "user", "What do the notes say?"),
    line("a1", "u1", "assistant", [{
      type: "tool_use",
      id: "toolu_1",
      name: "Read",
      input: { file_path: `${cwd}/notes.txt` },
    }]),
    line("r1", "a1", "user", [{
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: "buy milk",
    }]),
    line("a2", "r1", "assistant", [{ type: "text", text: "They say: buy milk." }, {
      type: "tool_use",
      id: "toolu_2",
      name: "Bash",
      input: { command: "date" },
    }]),
  ].join("\n") + "\n";
}

Deno.test("harness sessions import makes a Claude Code transcript a session --continue goes on with", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(join(sandbox.cwd, "chat.jsonl"), claudeTranscript(sandbox.cwd));
  const imported = await sandbox.run(["sessions", "import", "chat.jsonl"]);
  assertEquals(imported.code, 0, imported.stderr);
  match(
    imported.stdout,
    /Imported ".*chat\.jsonl" \(Claude Code\) as session \S+ in \S+: 2 messages; 2 tool calls; 1 answered "interrupted" \(no result\); skipped summary lines without uuid: 1 \(line 1\)/,
  );
  const again = await sandbox.run(["sessions", "import", "chat.jsonl"]);
  assertEquals(again.code, 0, again.stderr);
  match(again.stdout, /^Already imported: ".*chat\.jsonl" is session /);

  await using server = startFakeLlmServer([reply().text("Milk, and the date call was cut off.")]);
  const next = await sandbox.run([
    "--continue",
    "-p",
    "anything else?",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
  ]);
  assertEquals(next.code, 0, next.stderr);
  assertEquals(next.stdout, "Milk, and the date call was cut off.\n");
  const sent = server.requests[0]!.messages;
  assertEquals(sent[0]?.role, "system");
  assertEquals(sent.slice(1).map((m) => m.role), [
    "user",
    "assistant",
    "tool",
    "assistant",
    "tool",
    "user",
  ]);
  assertEquals(sent[1]?.content, "What do the notes say?");
  match(String(sent[3]?.content), /buy milk/);
  match(String(sent[5]?.content), /"error_type":"interrupted"/);
  assertEquals(sent.at(-1)?.content, "anything else?");
  assertEquals(server.pairingErrors, []);
});

Deno.test("harness sessions import reads a folder of every agent's transcripts and refuses a broken file by its line", async () => {
  await using sandbox = await cliSandbox();
  const folder = join(sandbox.cwd, "transcripts");
  for (const agent of ["claude-code", "codex", "gemini-cli", "opencode"]) {
    await Deno.mkdir(join(folder, agent), { recursive: true });
    for (const name of ["read_and_fix", "interrupted"]) {
      for (const ext of [".json", ".jsonl"]) {
        const from = join(CORPUS, agent, name + ext);
        try {
          await Deno.copyFile(from, join(folder, agent, name + ext));
        } catch { /* the corpus has one of the two */ }
      }
    }
  }
  await Deno.writeTextFile(join(folder, "settings.json"), '{\n  "theme": "dark"\n}\n');
  const out = await sandbox.run(["sessions", "import", "transcripts"]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout.match(/^Imported "/gm)?.length, 8);
  match(out.stdout, /Imported 8 of 8 transcript\(s\)/);
  match(out.stderr, /Left out 1 file\(s\) that are not transcripts \(".*settings\.json"\)/);
  const listed = await sandbox.run(["sessions", "list"]);
  assertEquals(listed.stdout.trim().split("\n").length, 9, listed.stdout);

  await Deno.copyFile(
    join(CORPUS, "broken/opencode_truncated.json"),
    join(sandbox.cwd, "bad.json"),
  );
  const bad = await sandbox.run(["sessions", "import", "bad.json"]);
  assertEquals(bad.code, 1);
  match(
    bad.stderr,
    /Cannot import ".*bad\.json": not JSON at line 36, column 16 \(Unterminated string in JSON\)/,
  );
});

Deno.test("harness sessions export: JSONL imported into another log exports to the same bytes; Markdown reads", async () => {
  await using first = await cliSandbox();
  await Deno.writeTextFile(join(first.cwd, "a.txt"), "apple\n");
  await using server = startFakeLlmServer([
    reply().reasoning("look").toolCall("read_file", { path: "a.txt" }),
    reply().toolCall("write_file", { path: "b.txt", content: "banana\n" }),
    reply().text("It says apple. \u001b[31m"),
  ]);
  const ran = await first.run([
    "-p",
    "read a.txt",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    "-R",
    "-W=.",
    "--output-format",
    "json",
  ]);
  assertEquals(ran.code, 0, ran.stderr);
  const id = String(lastJsonLine(ran.stdout).session_id);
  const exported = await first.run(["sessions", "export", id, "--output", "one.jsonl"]);
  assertEquals(exported.code, 0, exported.stderr);
  const one = await Deno.readFile(join(first.cwd, "one.jsonl"));
  const types = new TextDecoder().decode(one).trimEnd().split("\n").map((line) =>
    JSON.parse(line).type
  );
  // The export holds what belongs to the run that recorded it: its system prompt and the
  // checkpoint of the turn that wrote b.txt.
  assert(types.includes("system_message") && types.includes("checkpoint_recorded"), types.join());
  const printed = await first.run(["sessions", "export", id, "--format", "jsonl"]);
  assertEquals(
    JSON.parse(printed.stdout.split("\n")[0]!),
    JSON.parse(new TextDecoder().decode(one).split("\n")[0]!),
  );

  await using second = await cliSandbox();
  await Deno.copyFile(join(first.cwd, "one.jsonl"), join(second.cwd, "one.jsonl"));
  const imported = await second.run(["sessions", "import", "one.jsonl"]);
  assertEquals(imported.code, 0, imported.stderr);
  match(imported.stdout, new RegExp(`as session ${id} in `));
  // The recording run's system prompt and checkpoints stay in the log as inert records: the
  // export gives the same bytes, and a resume never uses them (sessions_import_attack_test).
  match(imported.stdout, /kept as inert records: .*its system prompt \(this run's is used\): 1/);
  const reexported = await second.run(["sessions", "export", id, "--output", "two.jsonl"]);
  assertEquals(reexported.code, 0, reexported.stderr);
  assertEquals(await Deno.readFile(join(second.cwd, "two.jsonl")), one);
  // And the other way round, into the log it came from: already there.
  const back = await first.run(["sessions", "import", "one.jsonl"]);
  match(back.stdout, new RegExp(`^Already imported: ".*one\\.jsonl" is session ${id}`));

  const md = await second.run(["sessions", "export", id, "--format", "md"]);
  assertEquals(md.code, 0, md.stderr);
  match(md.stdout, new RegExp(`^# Session ${id}\n\n- Folder: `));
  match(md.stdout, /## User\n\nread a\.txt/);
  match(md.stdout, /\*\*Tool call\*\* `read_file`\n\n```json\n\{\n {2}"path": "a\.txt"\n\}\n```/);
  match(md.stdout, /\*\*Result\*\* \(succeeded\)/);
  assert(!md.stdout.includes("\u001b"), "escapes reach the terminal as text");
  const wrongFlag = await second.run(["sessions", "list", "--format", "md"]);
  assertEquals(wrongFlag.code, 2);
  match(wrongFlag.stderr, /--format and --output apply only to "harness sessions export"/);
});
