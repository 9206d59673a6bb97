import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import {
  slashCommands,
  type SlashContext,
  startingCommands,
} from "../../../src/cli/slash/slash_commands.ts";
import { Conversation } from "../../../src/agent/conversation.ts";
import { ScriptedProvider } from "../../../src/providers/scripted.ts";
import { noTools } from "../../helpers/no_tools.ts";
import type { ReplControl, SlashCommand } from "../../../src/ui/repl.ts";
import { createStyle } from "../../../src/ui/style.ts";
import { makeToolContext } from "../../helpers/tool_context.ts";

function conversation(state: Record<string, unknown> = {}): Conversation {
  return new Conversation({
    provider: new ScriptedProvider([]),
    tools: noTools,
    approver: { approve: () => Promise.resolve({ decision: "allow", by: "mode" }) },
    recorder: { id: null, record: () => {}, end: () => {} },
    limits: { maxIterations: 10, maxToolCalls: 15 },
    window: {},
    stages: { call: [], turn: [] },
  }, { messages: [], state });
}

/** A REPL control surface that records what the commands write and set. */
function repl(current = conversation()): ReplControl & { out: string[] } {
  const out: string[] = [];
  return {
    out,
    write: (text) => out.push(text),
    style: createStyle(false),
    conversation: current,
    setConversation(next) {
      this.conversation = next;
    },
    runTurn: () => Promise.resolve(undefined),
    interruptible: (work) => work(() => {}, new AbortController().signal),
    exit: () => out.push("<exit>"),
  };
}

function context(extra: Partial<SlashContext> = {}): SlashContext {
  return {
    tools: () => Promise.resolve([]),
    permissionsReport: () => Promise.resolve("Sandbox: none"),
    sessionsList: () => "s1 first\ns2 second",
    resume: () => Promise.resolve({ error: 'No session "x"' }),
    fresh: () => conversation(),
    ...extra,
  };
}

async function run(commands: SlashCommand[], line: string, control: ReplControl): Promise<void> {
  const [name, ...rest] = line.split(" ");
  const command = commands.find((c) => c.name === name);
  if (!command) throw new Error(`no /${name}`);
  await command.run(rest.join(" "), control);
}

Deno.test("slashCommands() /help lists every command, those added after it too", async () => {
  const commands = slashCommands(context());
  assertEquals(commands.map((c) => c.name), [
    "help",
    "tools",
    "mcp",
    "skills",
    "context",
    "compact",
    "permissions",
    "tasks",
    "jobs",
    "clear",
    "continue",
    "sessions",
    "resume",
    "stats",
    "exit",
  ]);
  commands.push({ name: "model", summary: "switch the model", run: () => {} });
  const control = repl();
  await run(commands, "help", control);
  const text = control.out.join("");
  match(text, /^ {2}\/help {9}list commands\n/);
  match(text, /\/model {8}switch the model\n {2}Ctrl-C interrupts a reply or tool/);
});

Deno.test("slashCommands() /resume lists sessions without an ID, reports errors, else switches", async () => {
  const resumed = conversation();
  const commands = slashCommands(context({
    resume: (id) =>
      Promise.resolve(
        id === "s2"
          ? { conversation: resumed, note: "Resumed s2" }
          : { error: `No session "${id}"` },
      ),
  }));
  const control = repl();
  await run(commands, "resume", control);
  assertEquals(control.out, ["s1 first\ns2 second\nType /resume ID to resume one\n"]);
  await run(commands, "resume x", control);
  assertEquals(control.out[1], 'No session "x"\n');
  await run(commands, "resume  s2 ", control);
  assertEquals([control.out[2], control.conversation === resumed], ["Resumed s2\n", true]);
});

Deno.test("slashCommands() /clear starts the context's fresh conversation", async () => {
  const fresh = conversation();
  const control = repl();
  await run(slashCommands(context({ fresh: () => fresh })), "clear", control);
  assertEquals(control.conversation, fresh);
  match(control.out.join(""), /approvals given for this session are forgotten/);
});

Deno.test("slashCommands() say what is missing: MCP servers, statistics, a turn to continue", async () => {
  const commands = slashCommands(context());
  const control = repl();
  await run(commands, "mcp", control);
  await run(commands, "stats", control);
  await run(commands, "continue", control);
  await run(commands, "exit", control);
  assertEquals(control.out, [
    'No MCP servers configured: add one with "harness mcp add NAME -- COMMAND ARGS..."\n',
    "No statistics in this front end\n",
    "Nothing to continue: the last turn was answered\n",
    "<exit>",
  ]);
});

Deno.test("slashCommands() /tasks and /permissions show the conversation's list and the report", async () => {
  const commands = slashCommands(context());
  const control = repl(conversation({
    tasks: [{ id: "task_1", content: "Write tests", status: "in_progress" }],
  }));
  await run(commands, "tasks", control);
  await run(commands, "permissions", control);
  match(control.out[0] ?? "", /Write tests/);
  assertEquals(control.out[1], "Sandbox: none\n");
});

Deno.test("slashCommands() /compact FOCUS asks for a summary that keeps the focus", async () => {
  const provider = new ScriptedProvider([{
    text: "Summary kept.",
    reasoning: "",
    toolCalls: [],
    stopReason: "stop",
  }]);
  const current = new Conversation({
    provider,
    tools: noTools,
    approver: { approve: () => Promise.resolve({ decision: "allow", by: "mode" }) },
    recorder: { id: null, record: () => {}, end: () => {} },
    limits: { maxIterations: 10, maxToolCalls: 15 },
    window: {},
    stages: { call: [], turn: [] },
  }, {
    messages: [
      { kind: "system", content: "sys" },
      { kind: "user", content: "fix the parser" },
      { kind: "assistant", content: "Fixed in src/parse.ts.", data: {} },
    ],
  });
  const control = repl(current);
  await run(slashCommands(context()), "compact the parser fix and its test", control);
  const instruction = provider.requests[0]!.at(-1)!.content;
  match(instruction, /Focus on: the parser fix and its test\. Keep everything about it/);
  assertEquals(current.messages.at(-1)?.content, "Summary kept.");
});

Deno.test({
  name: "slashCommands() /jobs lists the background jobs and /jobs kill ID stops one",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await using ctx = await makeToolContext();
    await ctx.jobs.run({ command: "sleep 30", cwd: ctx.workspace, background: true, limit: 100 });
    const commands = slashCommands(context({ jobs: ctx.jobs }));
    const control = repl();
    await run(commands, "jobs", control);
    match(control.out.join(""), /^ {2}j1 running \d+(ms|s): sleep 30\n$/);
    await run(commands, "jobs kill j1", control);
    match(control.out.at(-1) ?? "", /^j1 killed after \d+(ms|s): sleep 30\n$/);
    await run(commands, "jobs kill j9", control);
    match(control.out.at(-1) ?? "", /No job "j9": the jobs are j1/);
  },
});

Deno.test("startingCommands() are the table's commands, which Tab completes while the run opens", async () => {
  // readline reads keys from the REPL's creation: "/he" and Tab, typed before the run has
  // opened, must complete to /help then (the key is gone by the time the commands exist).
  const starting = startingCommands();
  const built = slashCommands(context()).map((command) => command.name);
  assertEquals(starting.map((command) => command.name), built);
  assert(starting.some((command) => command.name === "help"));
  const r = repl();
  await starting.find((command) => command.name === "help")!.run("", r);
  assertEquals(r.out, ["/help is not ready yet: harness is still starting\n"]);
});
