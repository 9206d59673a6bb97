// End-to-end tests of plan mode through the real CLI: `-p --plan` writes only the plan (in
// harness's data folder) while commands run and keep nothing; in the REPL, /plan switches it on
// and off, leaving shows the plan and asks, and every request of the session extends the one
// before it byte for byte (the switch is a note on the next message; the tools stay the same),
// so the server's cached prefix holds.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import {
  type RecordedRequest,
  reply,
  type ReplyBuilder,
  startFakeLlmServer,
} from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { hasCommand } from "../helpers/system_commands.ts";

const confined = Deno.build.os === "linux" && hasCommand("bwrap");

/** The plan file the model was told to write (the note on its message). */
function planFileOf(request: RecordedRequest): string {
  const said = JSON.stringify(request.messages);
  const found = /Write your plan to (\S+) with write_file/.exec(said);
  if (!found) throw new Error(`no plan note in ${said}`);
  return found[1]!;
}

function results(request: RecordedRequest | undefined) {
  return (request?.messages ?? []).filter((m) => m.role === "tool").map((m) =>
    JSON.parse(String(m.content)) as {
      success: boolean;
      data: string | null;
      error_type: string;
      error_message: string | null;
    }
  );
}

Deno.test({
  name: "harness -p --plan writes only the plan; commands run and keep nothing",
  ignore: !confined,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "before\n");
    let plan = "";
    await using server = startFakeLlmServer((request, n): ReplyBuilder | undefined => {
      if (n === 1) plan = planFileOf(request);
      const script = [
        () => reply().toolCall("write_file", { path: "a.txt", content: "after\n" }),
        () => reply().toolCall("run_command", { command: "echo changed > a.txt; cat a.txt" }),
        () => reply().toolCall("write_file", { path: plan, content: "# Plan\n1. Edit a.txt\n" }),
        () => reply().text("The plan is ready."),
      ];
      return script[n - 1]?.();
    });
    const flags = ["--base-url", server.baseUrl, "--model", "m", "--output-format", "json"];
    const grants = ["--allow-read=.", "--allow-write=.", "--allow-run", "--yes"];
    const out = await sandbox.run(["-p", "Plan the change", "--plan", ...flags, ...grants]);
    assertEquals(out.code, 0, out.stderr);
    const last = server.requests.at(-1);
    const [edit, command, written] = results(last);
    assertEquals(edit?.error_type, "permission_denied", JSON.stringify(edit));
    // The refusal says plan mode is why (a flag would not help), not to restart with one.
    match(
      String(edit?.error_message),
      /plan mode writes only the plan folder ".+": write the plan/,
    );
    assert(command?.success, JSON.stringify(command));
    assert(written?.success, JSON.stringify(written));
    assertEquals(await Deno.readTextFile(`${sandbox.cwd}/a.txt`), "before\n");
    // The plan is in harness's data folder, for this session, and nowhere in the workspace.
    assert(plan.startsWith(`${sandbox.home}/.local/share/harness/plans/`), plan);
    match(plan, new RegExp(`${String(lastJsonLine(out.stdout).session_id)}/plan\\.md$`));
    assertEquals(await Deno.readTextFile(plan), "# Plan\n1. Edit a.txt\n");
    assertEquals([...Deno.readDirSync(sandbox.cwd)].map((e) => e.name), ["a.txt"]);
    // The same run without --plan offers the same tools: plan mode changes what calls can do.
    await using plain = startFakeLlmServer([reply().text("ok")]);
    const again = await sandbox.run([
      "-p",
      "x",
      "--base-url",
      plain.baseUrl,
      "--model",
      "m",
      ...grants,
    ]);
    assertEquals(again.code, 0, again.stderr);
    assertEquals(plain.requests[0]?.tools, server.requests[0]?.tools);
  },
});

Deno.test({
  name: "/plan in the REPL keeps every request's prefix byte for byte, and leaving asks",
  ignore: !confined,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "before\n");
    let plan = "";
    await using server = startFakeLlmServer((request, n) => {
      if (n === 2) plan = planFileOf(request);
      const script = [
        () => reply().text("Hello."),
        () => reply().toolCall("write_file", { path: plan, content: "# Plan\nchange a.txt\n" }),
        () => reply().text("Planned."),
        () => reply().toolCall("write_file", { path: "a.txt", content: "after\n" }),
        () => reply().text("Implemented."),
      ];
      return script[n - 1]?.();
    });
    const out = await sandbox.run([
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--allow-read=.",
      "--allow-write=.",
      "--allow-run",
      "--yes",
    ], { stdin: "hello\n/plan\nplan the change\n/plan\n1\n/exit\n" });
    assertEquals(out.code, 0, out.stderr);
    match(out.stdout, /Plan mode: the model reads, searches and runs commands/);
    match(out.stdout, /Plan \(.*plan\.md\):\n# Plan\nchange a\.txt/);
    match(out.stdout, /Leave plan mode\? \[1\] implement it now/);
    match(out.stdout, /Plan mode is off/);
    assertEquals(server.requests.length, 5);
    assertEquals(await Deno.readTextFile(`${sandbox.cwd}/a.txt`), "after\n");
    // Each request starts with every message of the one before, unchanged, and the same tools.
    for (let i = 1; i < server.requests.length; i++) {
      const before = server.requests[i - 1]!;
      const now = server.requests[i]!;
      assertEquals(now.tools, before.tools, `request ${i + 1} changed the tools`);
      assertEquals(
        JSON.stringify(now.messages.slice(0, before.messages.length)),
        JSON.stringify(before.messages),
        `request ${i + 1} changed an earlier message`,
      );
    }
    // The switches went with the next messages.
    const said = (i: number) => String(server.requests[i]!.messages.at(-1)?.content);
    match(said(1), /^plan the change\n\n\[Plan mode is on:/);
    match(
      said(3),
      /^Implement the plan\.\n\n\[Plan mode is off: .*Carry out the plan in .*plan\.md/,
    );
  },
});

Deno.test({
  name: "/plan in the REPL: keep planning stays in plan mode; start fresh sends only the plan",
  ignore: !confined,
  async fn() {
    await using sandbox = await cliSandbox();
    let plan = "";
    await using server = startFakeLlmServer((request, n) => {
      if (n === 1) plan = planFileOf(request);
      const script = [
        () => reply().toolCall("write_file", { path: plan, content: "# Plan\nchange a.txt\n" }),
        () => reply().text("Planned."),
        () => reply().text("Implementing."),
      ];
      return script[n - 1]?.();
    });
    const out = await sandbox.run([
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--allow-read=.",
      "--allow-write=.",
      "--yes",
    ], { stdin: "/plan\nplan the change\n/plan\n2\n/plan\n3\n/exit\n" });
    assertEquals(out.code, 0, out.stderr);
    match(out.stdout, /Still in plan mode/);
    assertEquals(out.stdout.match(/Leave plan mode\?/g)?.length, 2);
    assertEquals(server.requests.length, 3);
    // The fresh conversation: its system prompt and the plan, nothing of the planning.
    const fresh = server.requests[2]!.messages;
    assertEquals(fresh.map((m) => m.role), ["system", "user"]);
    match(String(fresh[1]!.content), /^Implement this plan:\n\n# Plan\nchange a\.txt/);
    assert(!JSON.stringify(fresh).includes("plan the change"), JSON.stringify(fresh));
  },
});
