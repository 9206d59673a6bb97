// Issue 13, finding 4, end to end: a model's run_command calls through the real CLI. An allow
// rule does not run a command with an assignment in front, and with --yes a command that
// could hide a denied program (a script piped into sh) is denied, not run.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cliSandbox } from "../helpers/run_cli.ts";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";

const RULES = JSON.stringify({
  rules: [
    { tool: "run_command", match: { command: "touch *" }, action: "allow" },
    { tool: "run_command", match: { command: "rm *" }, action: "deny" },
  ],
});

/** The run's flags: the scripted server, commands confined to the workspace, rules.jsonc. */
function flags(baseUrl: string): string[] {
  return [
    "--base-url",
    baseUrl,
    "--model",
    "m",
    "--allow-run",
    "--allow-read=.",
    "--allow-write=.",
    "--policies",
    "rules.jsonc",
    "--no-session",
  ];
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name: "harness -p runs an allowed plain command but not one with an assignment in front",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/rules.jsonc`, RULES);
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command: "touch plain.txt" }),
      reply().toolCall("run_command", { command: "PATH=./bin:$PATH touch assigned.txt" }),
      reply().text("done"),
    ]);
    const out = await sandbox.run(["-p", "go", ...flags(server.baseUrl)]);
    assertEquals(out.code, 0, out.stderr);
    assert(await exists(`${sandbox.cwd}/plain.txt`), "the plain allowed command did not run");
    assert(!await exists(`${sandbox.cwd}/assigned.txt`), "the assignment rode the allow rule");
    const results = server.requests.at(-1)!.messages.filter((m) => m.role === "tool");
    assert(String(results[1]?.content).includes("needs approval"), String(results[1]?.content));
  },
});

Deno.test({
  name: "harness -p --yes denies a command that pipes a script into sh while rm is denied",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/rules.jsonc`, RULES);
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command: "echo 'touch piped.txt' | sh" }),
      reply().toolCall("run_command", { command: "x='touch arith.txt'; echo $(($x))" }),
      reply().toolCall("run_command", { command: "sh -c -e 'rm -f plain.txt'" }),
      reply().text("done"),
    ]);
    await Deno.writeTextFile(`${sandbox.cwd}/plain.txt`, "keep");
    const out = await sandbox.run(["-p", "go", "--yes", ...flags(server.baseUrl)]);
    assertEquals(out.code, 0, out.stderr);
    assert(!await exists(`${sandbox.cwd}/piped.txt`), "--yes ran a script piped into sh");
    assert(await exists(`${sandbox.cwd}/plain.txt`), "sh -c -e got past the rm deny");
    const results = server.requests.at(-1)!.messages.filter((m) => m.role === "tool");
    for (const result of results) {
      assert(String(result.content).includes("permission_denied"), String(result.content));
    }
    assert(String(results[0]?.content).includes("cannot be named before it runs"));
  },
});

Deno.test({
  name:
    "harness -p --yes denies tar --use-compress=CMD and git -C . reset while rm and git reset are denied",
  ignore: Deno.build.os === "windows",
  async fn() {
    // Issue 26, items 5-7: a GNU long-option abbreviation ran `rm` past "rm *" under --yes,
    // and a global option before the subcommand hid it from "git reset *".
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(
      `${sandbox.cwd}/rules.jsonc`,
      JSON.stringify({
        rules: [
          { tool: "run_command", match: { command: "rm *" }, action: "deny" },
          { tool: "run_command", match: { command: "git reset *" }, action: "deny" },
        ],
      }),
    );
    await Deno.writeTextFile(`${sandbox.cwd}/victim.txt`, "keep");
    await Deno.writeTextFile(`${sandbox.cwd}/data.txt`, "data");
    const tar = await new Deno.Command("tar", {
      args: ["-cf", "a.tar", "data.txt"],
      cwd: sandbox.cwd,
    })
      .output();
    assert(tar.success);
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", {
        command: "tar --use-compress='rm -f victim.txt' -xf a.tar",
      }),
      reply().toolCall("run_command", { command: "tar --to-com='rm -f victim.txt' -xf a.tar" }),
      reply().toolCall("run_command", { command: "git -C . reset --hard" }),
      reply().text("done"),
    ]);
    const out = await sandbox.run(["-p", "go", "--yes", ...flags(server.baseUrl)]);
    assertEquals(out.code, 0, out.stderr);
    assert(await exists(`${sandbox.cwd}/victim.txt`), "an abbreviated option ran rm past the deny");
    const results = server.requests.at(-1)!.messages.filter((m) => m.role === "tool");
    assertEquals(results.length, 3);
    for (const result of results) {
      assert(String(result.content).includes("permission_denied"), String(result.content));
    }
  },
});
