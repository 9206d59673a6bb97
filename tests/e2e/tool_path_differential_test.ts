// A differential test of the tool path: scripted conversations run through the real CLI
// against the fake model server, and what they leave (the session log, every request the
// model received, what the CLI printed; normalised by tests/helpers/session_record.ts) must
// equal fixtures recorded from the version before the tool path was rebuilt (issue 39). The
// scenarios cover tool calls and their failures, approvals (allow, deny, edit, together),
// hooks, images, MCP, the code tools, checkpoints, the loop guard and repeated failures, and
// compaction; tool_path_differential_acp_test.ts adds the editor's files over ACP.
//
// Record fixtures from a checkout (e.g. main's) with
//   HARNESS_RECORD_FIXTURES=$PWD/tests/fixtures/tool_path deno test -A ... this file

import { fileURLToPath } from "node:url";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliResult, type CliSandbox, cliSandbox } from "../helpers/run_cli.ts";
import { checkRecord, modelRequests, normalise, sessionEvents } from "../helpers/session_record.ts";
import { DENO_READ } from "../helpers/deno_in_sandbox.ts";

const linux = Deno.build.os === "linux";
const RW = ["--allow-read=.", "--allow-write=."];
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

type Server = ReturnType<typeof startFakeLlmServer>;

/** The run's record: its session log, the model's requests and the CLI's output, normalised. */
async function record(
  sandbox: CliSandbox,
  server: Server,
  outputs: CliResult[],
): Promise<unknown> {
  const places = { cwd: sandbox.cwd, home: sandbox.home, servers: [server.baseUrl] };
  const ids = new Map<string, string>();
  return normalise(
    {
      events: sessionEvents(sandbox.home),
      requests: await modelRequests(server.requests),
      outputs: outputs.map(({ code, stdout, stderr }) => ({ code, stdout, stderr })),
      pairingErrors: server.pairingErrors,
    },
    places,
    ids,
  );
}

async function writeConfig(sandbox: CliSandbox, config: unknown): Promise<void> {
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.home}/.config/harness/config.jsonc`,
    JSON.stringify(config, null, 2),
  );
}

const model = (server: Server) => ["--base-url", server.baseUrl, "--model", "m"];

/** The fixtures were recorded on Linux (the system prompt names the system). */
function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, ignore: !linux, fn });
}

test("differential: -p runs, fails and limits tool calls as before", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "alpha\nbeta\n");
  await Deno.writeTextFile(`${sandbox.cwd}/crlf.txt`, "one\r\ntwo\r\n");
  await Deno.writeTextFile(`${sandbox.cwd}/f.py`, "def f():\n    return 1\n");
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "a.txt" }),
    reply()
      .toolCall("edit_file", { path: "a.txt", old_string: "beta", new_string: "gamma" })
      .toolCall("edit_file", { path: "crlf.txt", old_string: "two", new_string: "three" })
      .toolCall("edit_file", {
        path: "f.py",
        old_string: "def f():\n  return 1",
        new_string: "def f():\n  return 2",
      }),
    reply()
      .toolCall("write_file", { path: "b.txt", content: "new\n" })
      .toolCall("nope", {})
      .toolCall("add_task", {})
      .toolCall("run_command", { command: "ls" })
      .toolCall("read_file", "{not json")
      .toolCall("ls", {}),
    reply().toolCall("add_task", { content: "check" }).toolCall("list_tasks", {}),
    reply().toolCall("task_complete", { summary: "All done." }),
  ]);
  const out = await sandbox.run([
    "-p",
    "go",
    "--yes",
    ...model(server),
    ...RW,
    "--max-tool-calls",
    "5",
    "--output-format",
    "json",
  ]);
  const files = await Promise.all(
    ["a.txt", "crlf.txt", "f.py", "b.txt"].map((f) => Deno.readTextFile(`${sandbox.cwd}/${f}`)),
  );
  await checkRecord("print_tools", { run: await record(sandbox, server, [out]), files });
});

test("differential: the REPL's approvals (allow, deny, edit, together) as before", async () => {
  await using sandbox = await cliSandbox();
  const editor = `${sandbox.home}/editor.sh`;
  await Deno.writeTextFile(editor, `#!/bin/sh\nsed -i 's/"b.txt"/"c.txt"/' "$1"\n`);
  await Deno.chmod(editor, 0o755);
  await using server = startFakeLlmServer([
    reply().toolCall("write_file", { path: "a.txt", content: "A" }),
    reply().text("Wrote a."),
    reply().toolCall("edit_file", { path: "a.txt", old_string: "A", new_string: "B" }),
    reply().text("Understood."),
    reply().toolCall("write_file", { path: "b.txt", content: "b" }),
    reply().text("Noted."),
    reply()
      .toolCall("write_file", { path: "d.txt", content: "d" })
      .toolCall("write_file", { path: "e.txt", content: "e" }),
    reply().text("Two written."),
  ]);
  const out = await sandbox.run([...model(server), ...RW], {
    stdin: "write a\n1\nedit a\n4\nno thanks\nwrite b\n5\n1\nwrite two\na\n/exit\n",
    env: { EDITOR: editor, VISUAL: "" },
  });
  await checkRecord("repl_approvals", await record(sandbox, server, [out]));
});

test("differential: hooks before and after calls and around the turn as before", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.cwd}/sub`);
  await Deno.writeTextFile(`${sandbox.cwd}/sub/inside.txt`, "x");
  const hook = (command: string) => ({ hooks: [{ type: "command", command }] });
  const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;
  await writeConfig(sandbox, {
    hooks: {
      SessionStart: [hook("echo 'Session context.'")],
      UserPromptSubmit: [hook("echo 'Ticket: HX-1'")],
      PreToolUse: [
        {
          matcher: "Write",
          ...hook(
            `input=$(cat); case "$input" in *blocked.txt*) echo "no blocked files" >&2; exit 2;; esac`,
          ),
        },
        {
          matcher: "Edit",
          ...hook(json({
            hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "Edit ctx." },
          })),
        },
        {
          matcher: "LS",
          ...hook(json({
            hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { path: "sub" } },
          })),
        },
      ],
      PostToolUse: [{
        matcher: "Write",
        ...hook(json({ decision: "block", reason: "Run the linter." })),
      }],
      Stop: [hook(
        `input=$(cat); case "$input" in *'"stop_hook_active":true'*) exit 0;; esac; ` +
          `echo "Verify first." >&2; exit 2`,
      )],
    },
  });
  await using server = startFakeLlmServer([
    reply().toolCall("write_file", { path: "blocked.txt", content: "no" }),
    reply().toolCall("write_file", { path: "ok.txt", content: "one\n" }),
    reply().toolCall("edit_file", { path: "ok.txt", old_string: "one", new_string: "two" }),
    reply().toolCall("ls", {}),
    reply().text("Done."),
    reply().text("Verified."),
  ]);
  const out = await sandbox.run(["-p", "go", "--yes", ...model(server), ...RW]);
  await checkRecord("hooks", await record(sandbox, server, [out]));
});

test("differential: a tool's image reaches a model that sees, a note the one that does not", async () => {
  const runs = [];
  for (const vision of [true, false]) {
    await using sandbox = await cliSandbox();
    await Deno.writeFile(
      `${sandbox.cwd}/shot.png`,
      Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0)),
    );
    await using server = startFakeLlmServer([
      reply().toolCall("read_file", { path: "shot.png" }),
      reply().text("A pixel."),
    ], {
      routes: {
        "/props": { modalities: { vision }, default_generation_settings: { n_ctx: 8192 } },
      },
    });
    const out = await sandbox.run(["-p", "look", "--yes", ...model(server), "--allow-read=."]);
    runs.push(await record(sandbox, server, [out]));
  }
  await checkRecord("images", runs);
});

test("differential: MCP tools are called, fail and are logged as before", async () => {
  await using sandbox = await cliSandbox();
  const fixture = fileURLToPath(new URL("../fixtures/mcp/misbehaving_server.ts", import.meta.url));
  await writeConfig(sandbox, {
    mcp_servers: {
      bad: {
        command: Deno.execPath(),
        args: ["run", "-A", "--no-prompt", fixture],
        sandbox: { read: [...DENO_READ, "."], env: ["DENO_DIR"] },
      },
    },
  });
  await using server = startFakeLlmServer([
    reply().toolCall("bad__echo", { text: "hi" }),
    reply().toolCall("bad__fail", {}),
    reply().text("Echoed."),
  ]);
  const out = await sandbox.run([
    "-p",
    "echo",
    "--yes",
    ...model(server),
    `--allow-run=${Deno.execPath()}`,
  ]);
  await checkRecord("mcp", await record(sandbox, server, [out]));
});

test("differential: code tools, checkpoints and /undo in the REPL as before", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/main.ts`, "export function foo() {\n  return 1;\n}\n");
  await using server = startFakeLlmServer([
    reply().toolCall("find_definition", { name: "foo" }),
    reply().toolCall("write_file", { path: "main.ts", content: "export const foo = 2;\n" }),
    reply().text("Changed."),
  ]);
  const out = await sandbox.run([...model(server), ...RW, "--yes"], {
    stdin: "change foo\n/undo\n/exit\n",
  });
  const file = await Deno.readTextFile(`${sandbox.cwd}/main.ts`);
  await checkRecord("code_checkpoints", { run: await record(sandbox, server, [out]), file });
});

test("differential: the loop guard and repeated failures stop as before", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "alpha\n");
  const read = (path: string) => reply().toolCall("read_file", { path });
  await using server = startFakeLlmServer([
    read("a.txt"),
    read("a.txt"),
    read("a.txt"),
    read("a.txt"),
    read("missing.txt"),
    read("missing.txt"),
    read("missing.txt"),
    reply().text("never"),
  ]);
  const out = await sandbox.run(["-p", "go", "--yes", ...model(server), ...RW]);
  await checkRecord("loop_stops", await record(sandbox, server, [out]));
});

test("differential: /compact summarises and the next turn goes on from it as before", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().text("Hello."),
    reply().text("We greeted each other."),
    reply().text("Again."),
  ]);
  const out = await sandbox.run([...model(server), ...RW, "--context-length", "8192"], {
    stdin: "hello\n/compact\nagain\n/exit\n",
  });
  await checkRecord("compaction", await record(sandbox, server, [out]));
});
