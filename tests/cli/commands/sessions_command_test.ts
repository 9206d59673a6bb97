// End-to-end tests of `harness sessions` through the real CLI (tests/helpers/run_cli.ts):
// the list header and turn counts, and `delete` looking the id up before asking. A
// confirmed delete needs a terminal, so that test runs the CLI under util-linux `script`.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { dirname } from "node:path";
import { shellQuote } from "../../helpers/pty.ts";
import { type CliSandbox, cliSandbox, MAIN } from "../../helpers/run_cli.ts";
import {
  defaultSessionDatabasePath,
  openSessionStore,
} from "../../../src/sessions/open_session_store.ts";
import { formatSessionList } from "../../../src/cli/commands/sessions_command.ts";
import { turnCount } from "../../../src/sessions/turn_count.ts";
import type { SessionSummary } from "../../../src/sessions/query_sessions.ts";
import {
  makeToolResult,
  type Message,
  toolCallMessage,
  toolResultMessage,
} from "../../../src/messages.ts";

const ONE_TURN = "e1dd0000-0000-4000-8000-000000000001";
const TWO_TURNS = "f2ee0000-0000-4000-8000-000000000002";
const EMPTY = "a3ff0000-0000-4000-8000-000000000003";

/** Writes two sessions (1 and 2 user turns) into the sandbox's default database. */
async function seedSessions(sandbox: CliSandbox): Promise<void> {
  const path = defaultSessionDatabasePath(sandbox.env);
  await Deno.mkdir(dirname(path), { recursive: true });
  const ids = [ONE_TURN, TWO_TURNS, EMPTY];
  const opened = openSessionStore({ path, newId: () => ids.shift()! });
  if (!opened.ok) throw new Error(JSON.stringify(opened.error));
  const store = opened.value;
  try {
    for (const turns of [["only question"], ["first question", "second question"], []]) {
      const writer = store.startSession({
        model: "qwen3:8b",
        baseUrl: "http://127.0.0.1:1/v1",
        cwd: sandbox.cwd,
        grants: "",
        provider: "openai",
      });
      if (!writer.ok) throw new Error(JSON.stringify(writer.error));
      for (const content of turns) {
        writer.value.record({ type: "message", message: { kind: "user", content } });
      }
      writer.value.end();
    }
  } finally {
    store.close();
  }
}

/** Runs the CLI with a pseudo-terminal as stdin (util-linux `script`), typing `input`. */
async function runInTerminal(
  sandbox: CliSandbox,
  args: string[],
  input: string,
): Promise<{ code: number; output: string }> {
  const argv = [
    Deno.execPath(),
    "run",
    "-A",
    "--no-prompt",
    "--unstable-worker-options",
    MAIN,
    ...args,
  ];
  const child = new Deno.Command("script", {
    args: ["-qec", argv.map(shellQuote).join(" "), "/dev/null"],
    cwd: sandbox.cwd,
    env: sandbox.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const out = await child.output();
  const decoder = new TextDecoder();
  return { code: out.code, output: decoder.decode(out.stdout) + decoder.decode(out.stderr) };
}

async function hasScript(): Promise<boolean> {
  if (Deno.build.os !== "linux") return false;
  try {
    const out = await new Deno.Command("script", { args: ["--version"], stdout: "null" })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

Deno.test("turnCount() says 1 turn and N turns", () => {
  assertEquals([0, 1, 2].map(turnCount), ["0 turns", "1 turn", "2 turns"]);
});

Deno.test("formatSessionList() starts with a header and aligns the columns", () => {
  const session = (id: string, model: string, userTurns: number): SessionSummary => ({
    id,
    startedAt: "2025-01-02T03:04:05.000Z",
    lastAt: "2025-01-02T03:04:05.000Z",
    cwd: "/w",
    model,
    baseUrl: "",
    provider: "",
    grants: "",
    firstUserMessage: "fix\n  the   tests",
    userTurns,
  });
  assertEquals(
    formatSessionList([session("a1", "m", 1), session("b2", "longer", 12)]),
    [
      "ID  LAST ACTIVE       TURNS     MODEL   CWD  FIRST MESSAGE",
      "a1  2025-01-02 03:04  1 turn    m       /w   fix the tests",
      "b2  2025-01-02 03:04  12 turns  longer  /w   fix the tests",
    ].join("\n"),
  );
});

Deno.test("harness sessions lists a header line, then each session with its turn count", async () => {
  await using sandbox = await cliSandbox();
  await seedSessions(sandbox);
  const out = await sandbox.run(["sessions"]);
  assertEquals(out.code, 0, out.stderr);
  const lines = out.stdout.trimEnd().split("\n");
  assertEquals(lines.length, 3, out.stdout);
  match(lines[0]!, /^ID +LAST ACTIVE +TURNS +MODEL +CWD +FIRST MESSAGE$/);
  const one = lines.find((line) => line.startsWith(ONE_TURN));
  const two = lines.find((line) => line.startsWith(TWO_TURNS));
  match(one ?? "", / 1 turn +qwen3:8b .* only question$/);
  match(two ?? "", / 2 turns +qwen3:8b .* first question$/);
});

Deno.test("harness sessions says there are none without printing a header", async () => {
  await using sandbox = await cliSandbox();
  const out = await sandbox.run(["sessions"]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout, "No sessions yet\n");
});

Deno.test("harness sessions delete looks the id up before asking for a terminal", async () => {
  await using sandbox = await cliSandbox();
  await seedSessions(sandbox);
  const unknown = await sandbox.run(["sessions", "delete", "nope"]);
  assertEquals(unknown.code, 2);
  assertEquals(
    unknown.stderr.trim(),
    'error: No session matches "nope": run "harness sessions list" to see the ids',
  );

  const confirmed = await sandbox.run(["sessions", "delete", "f2ee", "--yes"]);
  assertEquals(confirmed.code, 0, confirmed.stderr);
  assertEquals(confirmed.stdout, `Deleted session ${TWO_TURNS}\n`);

  const refused = await sandbox.run(["sessions", "delete", "e1dd"]);
  assertEquals(refused.code, 2);
  match(
    refused.stderr,
    new RegExp(`Refusing to delete session "${ONE_TURN}" without confirmation`),
  );
  const listed = await sandbox.run(["sessions"]);
  assert(listed.stdout.includes(ONE_TURN), listed.stdout);
});

Deno.test({
  name: "harness sessions delete in a terminal asks, then prints the full id it deleted",
  ignore: !(await hasScript()),
  async fn() {
    await using sandbox = await cliSandbox();
    await seedSessions(sandbox);
    const declined = await runInTerminal(sandbox, ["sessions", "delete", "f2ee"], "n\n");
    assertEquals(declined.code, 0, declined.output);
    match(declined.output, new RegExp(`Delete session ${TWO_TURNS} \\(2 turns, `));
    match(declined.output, /Nothing deleted/);

    const deleted = await runInTerminal(sandbox, ["sessions", "delete", "e1dd"], "y\n");
    assertEquals(deleted.code, 0, deleted.output);
    match(deleted.output, new RegExp(`Delete session ${ONE_TURN} \\(1 turn, `));
    match(deleted.output, new RegExp(`Deleted session ${ONE_TURN}\\r?\\n`));

    const listed = await sandbox.run(["sessions"]);
    assert(!listed.stdout.includes(ONE_TURN), listed.stdout);
    assert(listed.stdout.includes(TWO_TURNS), listed.stdout);

    const unknown = await runInTerminal(sandbox, ["sessions", "delete", "nope"], "");
    assertEquals(unknown.code, 2, unknown.output);
    match(unknown.output, /No session matches "nope": run "harness sessions list" to see the ids/);
  },
});

Deno.test("harness sessions list hides sessions with nothing said unless --all, and --limit says more exist", async () => {
  await using sandbox = await cliSandbox();
  await seedSessions(sandbox);
  const plain = await sandbox.run(["sessions", "list"]);
  assertEquals(plain.code, 0, plain.stderr);
  assert(!plain.stdout.includes(EMPTY), plain.stdout);
  assertEquals(plain.stderr, "");
  const all = await sandbox.run(["sessions", "list", "--all"]);
  match(all.stdout, new RegExp(`${EMPTY} .* 0 turns`));
  const limited = await sandbox.run(["sessions", "list", "--limit", "1"]);
  assertEquals(limited.code, 0, limited.stderr);
  assertEquals(limited.stdout.trimEnd().split("\n").length, 2, limited.stdout);
  match(limited.stderr, /More sessions exist: showing the 1 most recently active; pass --limit 2/);
  const misplaced = await sandbox.run(["sessions", "export", "e1dd", "--limit", "3"]);
  assertEquals(misplaced.code, 2);
  match(misplaced.stderr, /--limit applies only to "harness sessions list"/);
});

Deno.test("harness sessions search finds tool calls and results, not the system prompt", async () => {
  await using sandbox = await cliSandbox();
  const path = defaultSessionDatabasePath(sandbox.env);
  await Deno.mkdir(dirname(path), { recursive: true });
  const opened = openSessionStore({ path });
  if (!opened.ok) throw new Error(JSON.stringify(opened.error));
  const writer = opened.value.startSession({
    model: "m",
    baseUrl: "http://127.0.0.1:1/v1",
    cwd: sandbox.cwd,
    grants: "",
    provider: "openai",
  });
  if (!writer.ok) throw new Error(JSON.stringify(writer.error));
  const record = (message: Message) => writer.value.record({ type: "message", message });
  record({ kind: "system", content: "You are harness, a zebrafish expert." });
  record({ kind: "user", content: "where is the config loaded" });
  record(
    toolCallMessage({ id: "c1", name: "grep_search", arguments: '{"pattern":"loadSettings"}' }),
  );
  record(toolResultMessage("c1", "grep_search", makeToolResult({ data: "src/okapi.ts:3" })));
  record(toolResultMessage("c2", "grep_search", makeToolResult({ data: "src/okapi.ts:9" })));
  writer.value.end();
  opened.value.close();

  const system = await sandbox.run(["sessions", "search", "zebrafish"]);
  assertEquals(system.stdout, 'No messages match "zebrafish"\n');
  const call = await sandbox.run(["sessions", "search", "loadSettings"]);
  match(call.stdout, / tool call +grep_search \{"pattern":"\[loadSettings\]"\}/);
  const result = await sandbox.run(["sessions", "search", "okapi", "--limit", "1"]);
  assertEquals(result.stdout.trimEnd().split("\n").length, 1, result.stdout);
  match(result.stdout, / tool result +.*\[okapi\]/);
  match(result.stderr, /More matches exist: showing the 1 newest; pass --limit 2/);
});
