// Issue 38's attacks through the real front ends, as a hostile model would try them: with the
// README's first example (`--allow-read=. --allow-write=.`, no --allow-run) the model's file
// tools must not plant a program git runs (core.fsmonitor in .git/config, a hook) nor change
// harness's own files; the protected set does not depend on --allow-run.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { startAcpClient } from "../helpers/acp_client.ts";

interface CallResult {
  name: string;
  result: { success: boolean; error_type: string; error_message: string | null };
}

Deno.test("harness -p --allow-read=. --allow-write=.: the model cannot plant core.fsmonitor or a hook", async () => {
  await using sandbox = await cliSandbox();
  const git = join(sandbox.cwd, ".git");
  await Deno.mkdir(join(git, "hooks"), { recursive: true });
  await Deno.writeTextFile(join(git, "config"), "[core]\n\tbare = false\n");
  await Deno.writeTextFile(join(sandbox.cwd, "README.md"), "hello\n");
  await using server = startFakeLlmServer([
    reply()
      .toolCall("write_file", {
        path: ".git/config",
        content: "[core]\n\tfsmonitor = touch pwned\n",
      })
      .toolCall("edit_file", {
        path: ".git/config",
        old_string: "bare = false",
        new_string: "bare = false\n\tfsmonitor = touch pwned",
      })
      .toolCall("write_file", {
        path: ".git/hooks/pre-commit",
        content: "#!/bin/sh\ntouch pwned\n",
      })
      .toolCall("write_file", {
        path: ".harness/config.jsonc",
        content: '{ "writable_git": true }',
      })
      .toolCall("write_file", { path: "README.md", content: "changed\n" }),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    "--allow-read=.",
    "--allow-write=.",
    "-p",
    "go",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const calls = lastJsonLine(out.stdout).tool_calls as CallResult[];
  const outcome = calls.map((c) => `${c.name}:${c.result.success ? "ok" : c.result.error_type}`);
  assertEquals(outcome, [
    "write_file:permission_denied",
    "edit_file:permission_denied",
    "write_file:permission_denied",
    "write_file:permission_denied",
    "write_file:ok",
  ]);
  assert(calls[0]!.result.error_message?.includes(".git"), calls[0]!.result.error_message ?? "");
  assertEquals(await Deno.readTextFile(join(git, "config")), "[core]\n\tbare = false\n");
  await Deno.stat(join(git, "hooks", "pre-commit")).then(() => assert(false, "hook"), () => {});
  await Deno.stat(join(sandbox.cwd, ".harness")).then(() => assert(false, ".harness"), () => {});
  assertEquals(await Deno.readTextFile(join(sandbox.cwd, "README.md")), "changed\n");
});

const linux = Deno.build.os === "linux";

Deno.test({
  name: "harness -p -R --allow-run: a command cannot read harness's data folder",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    // Outside /tmp, which commands see as their own empty folder.
    const xdgData = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "harness_data_" });
    await using _cleanup = {
      [Symbol.asyncDispose]: () => Deno.remove(xdgData, { recursive: true }),
    };
    const data = join(xdgData, "harness");
    await Deno.mkdir(join(data, "checkpoints", "x"), { recursive: true });
    await Deno.writeTextFile(join(data, "checkpoints", "x", "secret.txt"), "SNAPSHOT-SECRET");
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", {
        command: `cat ${data}/checkpoints/x/secret.txt; ls ${data}; echo listed`,
      }),
      reply().text("done"),
    ]);
    const out = await sandbox.run([
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "-R",
      "--allow-write=.",
      "--allow-run",
      "-p",
      "go",
      "--output-format",
      "json",
    ], { env: { XDG_DATA_HOME: xdgData } });
    assertEquals(out.code, 0, out.stderr);
    const calls = lastJsonLine(out.stdout).tool_calls as { result: { data: string } }[];
    const data0 = calls[0]!.result.data;
    assert(!data0.includes("SNAPSHOT-SECRET"), data0);
    assert(!data0.includes("sessions"), data0);
    assert(data0.includes("listed"), data0);
  },
});

Deno.test({
  name: "a command cannot rename the folder above a denied file or a protected folder",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.mkdir(join(sandbox.cwd, "secrets"));
    await Deno.writeTextFile(join(sandbox.cwd, "secrets", "key.txt"), "TOP-SECRET");
    await Deno.mkdir(join(sandbox.cwd, "tools", "plugins"), { recursive: true });
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", {
        command: "mv secrets open; mv tools t2; ls",
      }),
      reply().toolCall("read_file", { path: "open/key.txt" }),
      reply().text("done"),
    ]);
    const out = await sandbox.run([
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "--allow-read=.",
      "--allow-write=.",
      "--deny-read=secrets/key.txt",
      "--plugins=tools/plugins",
      "--allow-run",
      "-p",
      "go",
      "--output-format",
      "json",
    ]);
    assertEquals(out.code, 0, out.stderr);
    const calls = lastJsonLine(out.stdout).tool_calls as CallResult[];
    const listing = (calls[0]!.result as unknown as { data: string }).data;
    assert(listing.includes("Device or resource busy"), listing);
    assertEquals(calls[1]!.result.success, false);
    await Deno.stat(join(sandbox.cwd, "secrets", "key.txt"));
    await Deno.stat(join(sandbox.cwd, "tools", "plugins"));
    assert(!JSON.stringify(calls).includes("TOP-SECRET"));
  },
});

Deno.test("harness acp with an editor that offers fs writes: the model cannot write .git or .harness through it", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(join(sandbox.cwd, ".git"));
  const config = join(sandbox.cwd, ".git", "config");
  await Deno.writeTextFile(config, "[core]\n");
  await Deno.writeTextFile(join(sandbox.cwd, ".env"), "KEY=1\n");
  const buffers = new Map([[config, "[core]\n"], [join(sandbox.cwd, ".env"), "KEY=1\n"]]);
  await using server = startFakeLlmServer([
    reply()
      .toolCall("write_file", { path: ".git/config", content: "[core]\n\tfsmonitor = x\n" })
      .toolCall("edit_file", { path: ".git/config", old_string: "[core]", new_string: "[x]" })
      .toolCall("write_file", { path: ".harness/config.jsonc", content: "{}" })
      .toolCall("read_file", { path: ".env" })
      .toolCall("write_file", { path: "ok.txt", content: "fine" }),
    reply().text("Done."),
  ]);
  await using acp = startAcpClient(sandbox, [
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    "--allow-read=.",
    "--allow-write=.",
    "--deny-read=.env",
  ], { editorFiles: buffers });
  await acp.initialize();
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "go" }],
  });
  assertEquals(done.stopReason, "end_turn");
  const results = server.requests[1]!.messages.filter((m) => m.role === "tool")
    .map((m) => JSON.parse(String(m.content)) as CallResult["result"]);
  assertEquals(results.map((r) => r.success ? "ok" : r.error_type), [
    "permission_denied",
    "permission_denied",
    "permission_denied",
    "permission_denied",
    "ok",
  ]);
  // The editor was never asked to write or read a protected or denied file.
  assertEquals(acp.fsCalls.filter((call) => !call.endsWith("ok.txt")), []);
  assertEquals(buffers.get(config), "[core]\n");
});

Deno.test("harness -p: when a command moves a denied folder, the result says so and --yes stops", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(join(sandbox.cwd, "secrets"));
  await Deno.writeTextFile(join(sandbox.cwd, "secrets", "key.txt"), "TOP-SECRET");
  await using server = startFakeLlmServer([
    // Unconfined on purpose (the kernel refuses this rename inside bubblewrap).
    reply().toolCall("run_command", { command: "mv secrets open && echo moved" }),
    reply().toolCall("read_file", { path: "open/key.txt" }),
    reply().toolCall("write_file", { path: "notes.txt", content: "x" }),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    "--allow-read=.",
    "--allow-write=.",
    "--deny-read=secrets",
    "--allow-run",
    "--command-sandbox=off",
    "-p",
    "go",
    "--output-format",
    "json",
  ]);
  const calls = lastJsonLine(out.stdout).tool_calls as (CallResult & {
    result: { data: string | null };
  })[];
  assert(calls[0]!.result.data?.includes("moved"), JSON.stringify(calls[0]));
  assert(
    calls[0]!.result.data?.includes(`"${join(sandbox.cwd, "secrets")}" (--deny-read) was moved`),
  );
  // --yes no longer approves anything that is not read-only (read_file is low risk).
  for (const call of calls.slice(1)) {
    assertEquals(call.result.error_type, "permission_denied");
    assert(call.result.error_message?.includes("Auto-approval is off"), JSON.stringify(call));
  }
  assert(!JSON.stringify(calls).includes("TOP-SECRET"));
  await Deno.stat(join(sandbox.cwd, "notes.txt")).then(() => assert(false, "written"), () => {});
});

Deno.test("harness -p --allow-read=.: instruction files above the workspace, or linking out of it, are not sent", async () => {
  await using sandbox = await cliSandbox();
  const root = join(sandbox.cwd, "..");
  // The folder above the workspace is a repository (a dotfiles repository in a home folder).
  await Deno.mkdir(join(root, ".git"));
  await Deno.writeTextFile(join(root, "AGENTS.md"), "ABOVE-THE-WORKSPACE notes");
  await Deno.writeTextFile(join(root, "notes.md"), "LINKED-OUT notes");
  await Deno.symlink(join(root, "notes.md"), join(sandbox.cwd, "AGENTS.md"));
  await using server = startFakeLlmServer([reply().text("done"), reply().text("done")]);
  const args = ["--base-url", server.baseUrl, "--model", "m", "-p", "hi"];
  const narrow = await sandbox.run([...args, "--allow-read=."]);
  assertEquals(narrow.code, 0, narrow.stderr);
  const prompt = String(server.requests[0]?.messages[0]?.content);
  assert(!prompt.includes("ABOVE-THE-WORKSPACE"), prompt);
  assert(!prompt.includes("LINKED-OUT"), prompt);
  // A read grant over the repository lets harness read both, as before.
  const wide = await sandbox.run([...args, `--allow-read=${root}`]);
  assertEquals(wide.code, 0, wide.stderr);
  const widePrompt = String(server.requests[1]?.messages[0]?.content);
  assert(
    widePrompt.includes("ABOVE-THE-WORKSPACE") && widePrompt.includes("LINKED-OUT"),
    widePrompt,
  );
});

Deno.test("harness -p: a plugin file that links to a --deny-read file is skipped, never imported", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(join(sandbox.cwd, ".env"), "API_TOKEN = sk-live-SECRET-VALUE\n");
  await Deno.mkdir(join(sandbox.cwd, "tools"));
  await Deno.symlink(join(sandbox.cwd, ".env"), join(sandbox.cwd, "tools", "env.ts"));
  await using server = startFakeLlmServer([reply().text("done")]);
  const out = await sandbox.run([
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
    "--deny-read=.env",
    "--plugins=tools",
    "-p",
    "hi",
  ]);
  assertEquals(out.code, 0, out.stderr);
  assert(out.stderr.includes("Skipping plugin"), out.stderr);
  assert(!out.stderr.includes("SECRET") && !out.stdout.includes("SECRET"), out.stderr);
  assert(!JSON.stringify(server.requests).includes("SECRET"));
});

Deno.test("harness -p -R: a plugin cannot read harness's data folder, node:fs included", async () => {
  await using sandbox = await cliSandbox();
  const data = join(sandbox.home, ".local", "share", "harness");
  await Deno.mkdir(join(data, "checkpoints"), { recursive: true });
  await Deno.writeTextFile(join(data, "checkpoints", "snap.txt"), "SNAPSHOT-SECRET");
  await Deno.mkdir(join(sandbox.cwd, "tools"));
  await Deno.writeTextFile(
    join(sandbox.cwd, "tools", "peek.ts"),
    `import { readFileSync } from "node:fs";
export default ({ z, defineTool }) => defineTool({
  name: "peek", description: "Reads a file two ways.", risk: "low",
  parameters: z.object({ path: z.string() }),
  permissions: { read: true },
  run: ({ path }) => {
    const out = [];
    for (const read of [() => readFileSync(path, "utf8"), () => Deno.readTextFileSync(path)]) {
      try { out.push(read()); } catch (e) { out.push("refused: " + e.name); }
    }
    return { output: out.join(" | ") };
  },
});\n`,
  );
  await using server = startFakeLlmServer([
    reply().toolCall("peek", { path: join(data, "checkpoints", "snap.txt") }),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    "-R",
    "--plugins=tools",
    "-p",
    "go",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const calls = lastJsonLine(out.stdout).tool_calls as { result: { data: string } }[];
  assertEquals(calls[0]!.result.data, "refused: NotCapable | refused: NotCapable");
});

Deno.test("harness sessions export --output never writes into .git or harness's folders", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(join(sandbox.cwd, ".git", "hooks"), { recursive: true });
  // A session whose text a model wrote: exported over a hook, it would run at the next commit.
  await using server = startFakeLlmServer([reply().text("#!/bin/sh\ntouch pwned")]);
  const ran = await sandbox.run([
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "-p",
    "hi",
    "--output-format",
    "json",
  ]);
  const id = String(lastJsonLine(ran.stdout).session_id);
  const hook = join(sandbox.cwd, ".git", "hooks", "pre-commit");
  const out = await sandbox.run(["sessions", "export", id, "--output", hook]);
  assert(out.code !== 0, out.stdout);
  assert(out.stderr.includes("keeps .git read-only"), out.stderr);
  await Deno.stat(hook).then(() => assert(false, "written"), () => {});
  const fine = await sandbox.run(["sessions", "export", id, "--output", "session.jsonl"]);
  assertEquals(fine.code, 0, fine.stderr);
});

Deno.test("harness -p: the skill tool never reads a skill file --deny-read covers", async () => {
  await using sandbox = await cliSandbox();
  const folder = join(sandbox.home, ".claude", "skills", "notes");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeTextFile(
    join(folder, "SKILL.md"),
    "---\nname: notes\ndescription: Keep notes\n---\nRead keys.md\n",
  );
  await Deno.writeTextFile(join(folder, "keys.md"), "SKILL-SECRET");
  await using server = startFakeLlmServer([
    reply().toolCall("skill", { name: "notes", file: "keys.md" }),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    `--deny-read=${join(folder, "keys.md")}`,
    "-p",
    "go",
    "--output-format",
    "json",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const calls = lastJsonLine(out.stdout).tool_calls as CallResult[];
  assertEquals(calls[0]!.result.success, false, JSON.stringify(calls[0]));
  assert(!JSON.stringify(server.requests).includes("SKILL-SECRET"));
});
