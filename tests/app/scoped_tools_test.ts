// The tools of a narrowed scope are built from its grants, not merged from rules: a subagent
// whose agent may write only docs/ gets workers and a command sandbox that cannot write
// elsewhere, and plan mode's tools write only the plan folder (in harness's data folder, by
// absolute path) while commands run in a throwaway copy of the workspace. Real workers, real
// bubblewrap.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { openRunTools, type RunTools } from "../../src/app/run_tools.ts";
import { DEFAULT_SETTINGS } from "../../src/config/settings.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { childScope } from "../../src/sandbox/grants/child_scope.ts";
import { planModeGrants } from "../../src/sandbox/grants/plan_mode_grants.ts";
import type { ToolSet } from "../../src/tools/tool_set.ts";
import type { ToolResult } from "../../src/messages.ts";
import { hasCommand } from "../helpers/system_commands.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const confined = Deno.build.os === "linux" && hasCommand("bwrap");

async function openTools(cwd: string, data: string): Promise<RunTools> {
  const parsed = parseGrantFlags(["--allow-read=.", "--allow-write=.", "--allow-run"], { cwd });
  assert(parsed.ok);
  return await openRunTools({
    settings: { ...DEFAULT_SETTINGS, curator: "off", commandSandbox: "required" },
    grants: parsed.value.grants,
    cwd,
    frontEnd: {
      interactive: false,
      io: { write: () => {}, readLine: () => Promise.resolve(null) },
      mcpNotice: () => {},
      approvalNote: () => {},
      outputsDir: join(data, "outputs"),
    },
    provider: () => undefined,
    contextLength: () => undefined,
    server: () => Promise.resolve(undefined),
    messages: () => [],
    conversationWindow: () => undefined,
    conversationPrefix: () => undefined,
  });
}

async function call(set: ToolSet, name: string, args: unknown): Promise<ToolResult> {
  await set.ready();
  const entry = set.get(name);
  assert(entry, `no tool ${name}`);
  const valid = await entry.validate(args);
  assert(valid.ok, JSON.stringify(valid));
  return (await entry.run(valid.value, { state: {} })).result;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test({
  name: "ScopedTools.open() gives a subagent that may write docs/ workers that write nowhere else",
  ignore: !confined,
  async fn() {
    await using dir = await tempDir();
    const cwd = await Deno.realPath(dir.path);
    await Deno.mkdir(join(cwd, "docs"));
    await Deno.mkdir(join(cwd, "src"));
    const tools = await openTools(cwd, join(cwd, ".data"));
    try {
      await tools.set.ready();
      const names = tools.set.entries().map((entry) => entry.info.name);
      const parent = {
        tools: names,
        grants: tools.scoped.open({ grants: grantsOf(tools) }).grants,
      };
      const child = childScope({ ...parent, depth: 0, autoApprove: false }, {
        name: "docs",
        write: ["docs"],
      }, { workspace: cwd, maxDepth: 1, known: new Set(names) });
      assert(child.ok);
      const scoped = tools.scoped.open({ grants: child.value.grants, subagent: true });
      assertEquals(scoped.own, false);
      assert((await call(scoped.set, "write_file", { path: "docs/a.md", content: "a" })).success);
      const outside = await call(scoped.set, "write_file", { path: "src/a.ts", content: "x" });
      assertEquals(outside.error_type, "permission_denied", JSON.stringify(outside));
      // The agent's file narrowed what the user granted: a flag would not help, and neither
      // the worker nor the gate (the editor's files, other host-side writers) says one would.
      const advice = /this subagent may write only the paths its agent file allows/;
      assert(advice.test(String(outside.error_message)), String(outside.error_message));
      assert(!String(outside.error_message).includes("--allow-write"), outside.error_message!);
      const refused = scoped.gate.check("write", join(cwd, "src/a.ts"));
      assert(!refused.ok && advice.test(refused.refusal.message), JSON.stringify(refused));
      // Outside what the user granted, restarting with a flag is still the advice.
      const beyond = scoped.gate.check("write", "/var/tmp/x");
      assert(
        !beyond.ok && beyond.refusal.message.includes("--allow-write"),
        JSON.stringify(beyond),
      );
      await call(scoped.set, "run_command", { command: "echo x > src/b.txt; echo y > docs/c.md" });
      assertEquals(await exists(join(cwd, "src/a.ts")), false);
      assertEquals(await exists(join(cwd, "src/b.txt")), false);
      assertEquals(await Deno.readTextFile(join(cwd, "docs/c.md")), "y\n");
      // The same scope twice is one set; the workspace's own grants are the workspace's tools.
      assert(tools.scoped.open({ grants: child.value.grants, subagent: true }) === scoped);
      assert(tools.scoped.open({ grants: grantsOf(tools) }).set === tools.set);
    } finally {
      await tools.scoped.close();
      await tools.set.close();
    }
  },
});

Deno.test({
  name: "ScopedTools.open() in plan mode writes only the plan file, and commands keep nothing",
  ignore: !confined,
  async fn() {
    await using dir = await tempDir();
    const cwd = await Deno.realPath(dir.path);
    await using data = await tempDir();
    const planFolder = join(await Deno.realPath(data.path), "plans", "s1");
    await Deno.mkdir(planFolder, { recursive: true });
    await Deno.writeTextFile(join(cwd, "a.txt"), "before\n");
    const tools = await openTools(cwd, data.path);
    try {
      const plan = planModeGrants(grantsOf(tools), { planFolder, workspace: cwd });
      const scoped = tools.scoped.open({ ...plan, planFolder });
      const planFile = join(planFolder, "plan.md");
      const wrote = await call(scoped.set, "write_file", { path: planFile, content: "# Plan\n" });
      assert(wrote.success, JSON.stringify(wrote));
      assertEquals(await Deno.readTextFile(planFile), "# Plan\n");
      const edit = await call(scoped.set, "write_file", { path: "a.txt", content: "after\n" });
      assertEquals(edit.error_type, "permission_denied", JSON.stringify(edit));
      // With an overlay (bubblewrap 0.9) the command sees its change; without, the workspace is
      // read-only and plan mode says so. Either way nothing is kept.
      const ran = await call(scoped.set, "run_command", {
        command: "echo changed > a.txt && cat a.txt",
      });
      const said = String(ran.data);
      assert(said.includes("changed") || said.includes("[plan mode:"), said);
      assertEquals(await Deno.readTextFile(join(cwd, "a.txt")), "before\n");
      const read = await call(scoped.set, "run_command", { command: "cat a.txt && ls" });
      assert(String(read.data).startsWith("before\n"), JSON.stringify(read));
    } finally {
      await tools.scoped.close();
      await tools.set.close();
    }
  },
});

function grantsOf(tools: RunTools) {
  // The workspace's scope has the workspace's grants.
  return tools.scope.grants!;
}
