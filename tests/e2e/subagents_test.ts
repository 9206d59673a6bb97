// End-to-end tests of the `task` tool through `harness -p` (the real CLI as a subprocess against
// the scripted SSE server): a child conversation built from the agent's body, the project's
// instructions and the task alone; its report back with a task id and harness's own footer
// (the files its checkpoints recorded, the commands it ran); a follow-up with the task id; the
// child's calls under its task id in the JSON output and in the session log.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { isChildRequest, subagentResponder, taskMessage } from "../helpers/subagent_script.ts";

const FLAGS = ["--model", "m", "--output-format", "json", "--yes"];

function toolResults(request: { messages: { role: string; content?: unknown }[] } | undefined) {
  return (request?.messages ?? []).filter((m) => m.role === "tool").map((m) =>
    JSON.parse(String(m.content)) as {
      success: boolean;
      data: string | null;
      error_message: string;
    }
  );
}

Deno.test("task starts a child that sees only its agent, the project's instructions and the task", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/AGENTS.md`, "Project rule: quote line numbers.\n");
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "the answer is 42\n");
  const task = "Read a.txt, write its answer to b.txt and run echo checked";
  await using server = startFakeLlmServer(subagentResponder({
    parent: [
      reply().toolCall("task", { agent: "general", prompt: task }),
      reply().text("The subagent did it."),
    ],
    children: {
      [task]: [
        reply().toolCall("read_file", { path: "a.txt" }),
        reply().toolCall("write_file", { path: "b.txt", content: "42\n" }),
        reply().toolCall("run_command", { command: "echo checked" }),
        reply().text("a.txt:1 says 42; I wrote b.txt."),
      ],
    },
  }));
  const out = await sandbox.run([
    "-p",
    "Delegate the chore to a subagent",
    "--base-url",
    server.baseUrl,
    ...FLAGS,
    "--allow-read=.",
    "--allow-write=.",
    "--allow-run",
  ]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(server.pairingErrors, []);
  const child = server.requests.filter(isChildRequest);
  assertEquals(child.length, 4);
  // The child's first request: its system prompt (agent, project instructions) and the task.
  const first = child[0]!;
  assertEquals(first.messages.map((m) => m.role), ["system", "user"]);
  match(String(first.messages[0]!.content), /subagent "general"/);
  match(String(first.messages[0]!.content), /Project rule: quote line numbers\./);
  assertEquals(taskMessage(first), task);
  assert(!JSON.stringify(first.messages).includes("Delegate the chore"), "no parent history");
  // Its tools: the parent's, without task (max_agent_depth 1).
  const names = (first.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
  assert(names.includes("write_file") && !names.includes("task"), names.join());
  // The parent reads the report, its task id and harness's footer.
  const parentRequests = server.requests.filter((r) => !isChildRequest(r));
  const report = toolResults(parentRequests[1])[0]!;
  assert(report.success, JSON.stringify(report));
  const data = report.data ?? "";
  match(data, /^task_id: 1 \(agent "general"\)/);
  match(data, /a\.txt:1 says 42; I wrote b\.txt\./);
  match(data, /\[harness: what this subagent did, as harness recorded it\]/);
  match(data, /files changed: 1 file, \+1 -0\n {2}b\.txt \+1 -0/);
  match(data, /commands run: 1\n {2}\$ echo checked/);
  assertEquals(await Deno.readTextFile(`${sandbox.cwd}/b.txt`), "42\n");
  // -p's JSON keeps the child's calls under its task.
  const json = lastJsonLine(out.stdout);
  const calls = json.tool_calls as {
    name: string;
    subagent?: { task_id: string; agent: string; tool_calls: { name: string }[] };
  }[];
  assertEquals(calls.map((c) => c.name), ["task"]);
  assertEquals(calls[0]?.subagent?.task_id, "1");
  assertEquals(calls[0]?.subagent?.tool_calls.map((c) => c.name), [
    "read_file",
    "write_file",
    "run_command",
  ]);
  // The session log keeps the child's events, marked with its task.
  const exported = await sandbox.run(["sessions", "export", String(json.session_id)]);
  assertEquals(exported.code, 0, exported.stderr);
  const events = exported.stdout.trim().split("\n").map((line) => JSON.parse(line));
  const marked = events.filter((e) => e.payload?.task === "1");
  assert(marked.some((e) => e.type === "tool_call_requested" && e.payload.name === "write_file"));
  assert(marked.every((e) => e.payload.agent === "general"));
});

Deno.test("task with a task_id sends the same child a follow-up; an unknown id says what to do", async () => {
  await using sandbox = await cliSandbox();
  const task = "Remember the number 7";
  await using server = startFakeLlmServer(subagentResponder({
    parent: [
      reply().toolCall("task", { agent: "general", prompt: task }),
      reply().toolCall("task", { agent: "general", prompt: "What was it?", task_id: "1" }),
      reply().toolCall("task", { agent: "general", prompt: "And now?", task_id: "9" }),
      reply().text("done"),
    ],
    children: { [task]: [reply().text("Noted: 7."), reply().text("It was 7.")] },
  }));
  const out = await sandbox.run([
    "-p",
    "go",
    "--base-url",
    server.baseUrl,
    ...FLAGS,
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const child = server.requests.filter(isChildRequest);
  assertEquals(child.length, 2);
  // The follow-up carries the child's own history.
  assertEquals(child[1]!.messages.map((m) => m.role), ["system", "user", "assistant", "user"]);
  assertEquals(child[1]!.messages.at(-1)?.content, "What was it?");
  const parentRequests = server.requests.filter((r) => !isChildRequest(r));
  match(toolResults(parentRequests[2]).at(-1)!.data ?? "", /^task_id: 1 .*\n\nIt was 7\./s);
  const unknown = toolResults(parentRequests[3]).at(-1)!;
  assertEquals(unknown.success, false);
  match(unknown.error_message, /No task "9" in this conversation: call task without task_id/);
});

Deno.test("task calls of one reply run together up to the server's slots, each child on its own", async () => {
  await using sandbox = await cliSandbox();
  // llama-server with three slots: the parent keeps one, two children run at once.
  const props = { total_slots: 3, default_generation_settings: { n_ctx: 8192 } };
  const tasks = ["Look at A", "Look at B", "Look at C"];
  await using server = startFakeLlmServer(
    subagentResponder({
      parent: [
        reply().toolCall("task", { agent: "general", prompt: tasks[0] })
          .toolCall("task", { agent: "general", prompt: tasks[1] })
          .toolCall("task", { agent: "general", prompt: tasks[2] }),
        reply().text("All three looked."),
      ],
      children: Object.fromEntries(tasks.map((task) => [task, [reply().delay(400).text("seen")]])),
    }),
    { routes: { "/props": props } },
  );
  const out = await sandbox.run([
    "-p",
    "go",
    "--base-url",
    server.baseUrl,
    ...FLAGS,
    "--allow-read=.",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const at = (task: string) =>
    server.requests.findIndex((r) => isChildRequest(r) && taskMessage(r) === task);
  const [a, b, c] = tasks.map(at);
  const times = server.times;
  // A and B overlapped; C started only once one of them had ended (a slot was free again).
  assert(times[b!]!.received < times[a!]!.ended!, JSON.stringify(times));
  const firstEnd = Math.min(times[a!]!.ended!, times[b!]!.ended!);
  assert(times[c!]!.received >= firstEnd, JSON.stringify(times));
  // Every request pinned a slot: the parent's own, each child one of the other two.
  const parentSlots = new Set(
    server.requests.filter((r) => !isChildRequest(r)).map((r) => r.id_slot),
  );
  assertEquals(parentSlots.size, 1);
  const parentSlot = [...parentSlots][0];
  assert(typeof parentSlot === "number");
  const childSlots = [a, b, c].map((i) => server.requests[i!]!.id_slot);
  assert(
    childSlots.every((slot) => typeof slot === "number" && slot !== parentSlot),
    childSlots.join(),
  );
  assert(server.requests[a!]!.id_slot !== server.requests[b!]!.id_slot);
  // Three reports, in call order, each under its own task id.
  const report = toolResults(server.requests.filter((r) => !isChildRequest(r))[1]);
  assertEquals(report.map((r) => /^task_id: (\d+)/.exec(r.data ?? "")?.[1]), ["1", "2", "3"]);
});

Deno.test("harness stats counts a subagent's calls and requests with the parent's", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "alpha\n");
  const task = "Read a.txt";
  await using server = startFakeLlmServer(subagentResponder({
    parent: [
      reply().toolCall("task", { agent: "general", prompt: task }).usage(100, 5),
      reply().text("Done.").usage(160, 3),
    ],
    children: {
      [task]: [
        reply().toolCall("read_file", { path: "a.txt" }).usage(50, 4),
        reply().toolCall("read_file", { path: "missing.txt" }).usage(70, 4),
        reply().text("a.txt says alpha.").usage(90, 6),
      ],
    },
  }));
  const run = await sandbox.run([
    "-p",
    "Delegate",
    "--base-url",
    server.baseUrl,
    ...FLAGS,
    "--allow-read=.",
  ]);
  assertEquals(run.code, 0, run.stderr);
  const out = await sandbox.run(["stats", "--json"]);
  assertEquals(out.code, 0, out.stderr);
  const stats = lastJsonLine(out.stdout) as {
    sessions: number;
    tools: { tool: string; calls: number; successes: number; errors: Record<string, number> }[];
    models: { model: string; turns: number; promptTokens: number; generatedTokens: number }[];
  };
  assertEquals(stats.sessions, 1);
  const byName = Object.fromEntries(stats.tools.map((t) => [t.tool, t]));
  assertEquals([byName.task?.calls, byName.task?.successes], [1, 1]);
  assertEquals(
    [byName.read_file?.calls, byName.read_file?.successes, byName.read_file?.errors],
    [2, 1, { not_found: 1 }],
  );
  const [model] = stats.models;
  assertEquals([model?.turns, model?.promptTokens, model?.generatedTokens], [5, 470, 22]);
});
