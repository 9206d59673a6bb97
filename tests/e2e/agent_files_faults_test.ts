// Agent files with faults, through the real CLI: front matter that is not YAML, a tool harness
// does not have, no description. Each gets a line that says what is wrong (`harness agents`
// lists the notes and the skipped file; a run names the skipped file, and the task's line the
// tool its agent runs without), and every other agent still loads and runs.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { subagentResponder } from "../helpers/subagent_script.ts";

const FILES: Record<string, string> = {
  "good.md": "---\nname: good\ndescription: Does good work\ntools: Read, Grep\n---\nBe good.\n",
  "yam.md": "---\nname: yam\ndescription: [unclosed\ntools: Read\n---\nBe careful.\n",
  "ghost.md": "---\nname: ghost\ndescription: Haunts\ntools: Read, Frobnicate\n---\nBoo.\n",
  "quiet.md": "---\nname: quiet\n---\n",
};

Deno.test("agent files with bad YAML, an unknown tool or no description: each named, the rest run", async () => {
  await using sandbox = await cliSandbox();
  const folder = join(sandbox.home, ".claude", "agents");
  await Deno.mkdir(folder, { recursive: true });
  for (const [name, text] of Object.entries(FILES)) {
    await Deno.writeTextFile(join(folder, name), text);
  }
  const listed = await sandbox.run(["agents"]);
  assertEquals(listed.code, 0, listed.stderr);
  match(listed.stdout, /^Agents \(3\):/m);
  match(listed.stdout, /good .*Does good work/);
  match(
    listed.stdout,
    /yam .*\n {4}note: its front matter is not valid YAML \(.+\): read line by line/,
  );
  match(listed.stdout, /ghost .*tools: Read, Frobnicate/);
  match(listed.stdout, /Skipped \(1\):\n {2}~\/\.claude\/agents\/quiet\.md: .*description/);

  // The agent naming a tool harness lacks runs without it, and the run says so.
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "alpha\n");
  const task = "Read a.txt";
  await using server = startFakeLlmServer(subagentResponder({
    parent: [reply().toolCall("task", { agent: "ghost", prompt: task }), reply().text("Done.")],
    children: {
      [task]: [reply().toolCall("read_file", { path: "a.txt" }), reply().text("alpha")],
    },
  }));
  const run = await sandbox.run([
    "-p",
    "Delegate",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    "--allow-read=.",
    "--output-format",
    "json",
  ]);
  assertEquals(run.code, 0, run.stderr);
  const said = 'Agent "ghost" runs without "Frobnicate" (harness has no such tool)';
  const calls = lastJsonLine(run.stdout).tool_calls as { result: { data: string | null } }[];
  assert(String(calls[0]?.result.data).includes(said), JSON.stringify(calls[0]));
  match(
    run.stderr,
    /Skipping agent file ".*quiet\.md": it has no description: add a "description:"/,
  );
  // The user sees it on the task's line too.
  match(
    run.stderr,
    /ghost \(task 1\): answered, 0 commands\. Agent "ghost" runs without "Frobnicate"/,
  );
});
