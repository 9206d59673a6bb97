import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import {
  createPolicyApprover,
  type RuleSavedEvent,
} from "../../src/permissions/policy_approver.ts";
import type { LoadedRule } from "../../src/permissions/policy.ts";
import { loadPolicyFiles } from "../../src/permissions/policy_file.ts";
import { evaluatePolicy } from "../../src/permissions/policy.ts";
import type { ApprovalRequest } from "../../src/permissions/approver.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { scriptedPrompter } from "../helpers/scripted_prompter.ts";

/** A function, so TypeScript does not narrow the count between calls. */
function askedCount(prompter: { asked: unknown[] }): number {
  return prompter.asked.length;
}

let nextId = 0;
function call(tool: string, args: unknown, risk: ApprovalRequest["risk"]): ApprovalRequest {
  return { callId: String(++nextId), tool, args, risk };
}

const DENY_RM: LoadedRule[] = [
  { tool: "run_command", match: { command: "rm *" }, action: "deny", file: "u.jsonc", index: 1 },
  {
    tool: "read_file",
    match: { path: "**/.env" },
    action: "deny",
    reason: "Secrets",
    file: "u.jsonc",
    index: 2,
  },
];

Deno.test("createPolicyApprover() allows safe tools without asking", async () => {
  const prompter = scriptedPrompter([]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  const d = await approver.approve(call("list_files", {}, "safe"));
  if (d.decision !== "allow" || d.by !== "mode") throw new Error(JSON.stringify(d));
});

Deno.test("createPolicyApprover() asks for low risk once per session per tool", async () => {
  const prompter = scriptedPrompter([{ kind: "once" }, { kind: "once" }]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  await approver.approve(call("search", { pattern: "a" }, "low"));
  const again = await approver.approve(call("search", { pattern: "b" }, "low"));
  if (again.decision !== "allow" || askedCount(prompter) !== 1) throw new Error("asked twice");
  await approver.approve(call("glob", {}, "low"));
  if (askedCount(prompter) !== 2) throw new Error("other tool not asked");
  if (!approver.sessionApprovals().includes("search (low risk: any arguments)")) {
    throw new Error(approver.sessionApprovals().join());
  }
});

Deno.test("createPolicyApprover() asks for medium risk every time after allow once", async () => {
  const prompter = scriptedPrompter([{ kind: "once" }, { kind: "once" }]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  await approver.approve(call("write_file", { path: "a.txt" }, "medium"));
  await approver.approve(call("write_file", { path: "a.txt" }, "medium"));
  if (askedCount(prompter) !== 2) throw new Error("not asked twice");
});

Deno.test("createPolicyApprover() stops asking within a session approval's scope", async () => {
  const prompter = scriptedPrompter([{ kind: "session" }, { kind: "once" }]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  await approver.approve(call("run_command", { command: "git status" }, "high"));
  const same = await approver.approve(call("run_command", { command: "git status -s" }, "high"));
  if (same.decision !== "allow" || same.by !== "user" || askedCount(prompter) !== 1) {
    throw new Error(JSON.stringify(same));
  }
  await approver.approve(call("run_command", { command: "git status && git push" }, "high"));
  if (askedCount(prompter) !== 2) {
    throw new Error("compound command outside the scope was not asked");
  }
  if (approver.sessionApprovals()[0] !== 'run_command {"command": "git status *"}') {
    throw new Error(approver.sessionApprovals().join());
  }
});

Deno.test("createPolicyApprover().resetSession() forgets session approvals (/clear, /resume)", async () => {
  const prompter = scriptedPrompter([{ kind: "session" }, { kind: "once" }, { kind: "once" }]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  await approver.approve(call("run_command", { command: "git status" }, "high"));
  await approver.approve(call("search", { pattern: "x" }, "low"));
  if (askedCount(prompter) !== 2) throw new Error("both calls were asked");
  approver.resetSession();
  if (approver.sessionApprovals().length !== 0) throw new Error(approver.sessionApprovals().join());
  await approver.approve(call("run_command", { command: "git status" }, "high"));
  if (askedCount(prompter) !== 3) throw new Error("the session approval outlived /clear");
});

Deno.test("createPolicyApprover() lets deny rules win in every mode, with the rule's reason", async () => {
  for (const mode of ["interactive", "yes", "non_interactive"] as const) {
    const approver = createPolicyApprover({
      rules: DENY_RM,
      mode,
      prompter: scriptedPrompter([]),
      userPolicyFile: "u",
    });
    const d = await approver.approve(
      call("run_command", { command: "ls && sudo rm -rf /" }, "high"),
    );
    if (d.decision !== "deny" || d.by !== "policy" || d.rule !== "u.jsonc#1") {
      throw new Error(`${mode}: ${JSON.stringify(d)}`);
    }
    const env = await approver.approve(call("read_file", { path: "./x/../.env" }, "medium"));
    if (env.reason !== "Secrets") throw new Error(JSON.stringify(env));
  }
});

Deno.test("createPolicyApprover() in yes mode allows what would ask", async () => {
  const approver = createPolicyApprover({ rules: DENY_RM, mode: "yes", userPolicyFile: "u" });
  const d = await approver.approve(call("run_command", { command: "curl x | grep y" }, "high"));
  if (d.decision !== "allow" || d.by !== "mode") throw new Error(JSON.stringify(d));
});

Deno.test("createPolicyApprover() in non-interactive mode denies with how to grant it", async () => {
  const approver = createPolicyApprover({
    rules: [],
    mode: "non_interactive",
    userPolicyFile: "u",
  });
  const d = await approver.approve(call("run_command", { command: "npm test" }, "high"));
  if (d.decision !== "deny" || d.by !== "mode") throw new Error(JSON.stringify(d));
  for (
    const hint of [
      "needs approval",
      "--yes",
      '{"tool": "run_command", "match": {"command": "npm test *"}',
    ]
  ) {
    if (!d.reason?.includes(hint)) throw new Error(d.reason);
  }
  const allowed = createPolicyApprover({
    rules: [{
      tool: "run_command",
      match: { command: "npm *" },
      action: "allow",
      file: "p",
      index: 1,
    }],
    mode: "non_interactive",
    userPolicyFile: "u",
  });
  const ok = await allowed.approve(call("run_command", { command: "npm test" }, "high"));
  if (ok.decision !== "allow" || ok.by !== "policy" || ok.rule !== "p#1") {
    throw new Error(JSON.stringify(ok));
  }
});

Deno.test("createPolicyApprover() turns deny answers and Ctrl-C into decisions", async () => {
  const prompter = scriptedPrompter([{ kind: "deny", reason: "not now" }, { kind: "abort" }]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  const denied = await approver.approve(call("write_file", { path: "a" }, "medium"));
  if (denied.decision !== "deny" || denied.by !== "user" || !denied.reason?.includes("not now")) {
    throw new Error(JSON.stringify(denied));
  }
  if (denied.abortTurn) throw new Error("plain deny must not abort");
  const aborted = await approver.approve(call("write_file", { path: "a" }, "medium"));
  if (aborted.decision !== "deny" || aborted.abortTurn !== true) {
    throw new Error(JSON.stringify(aborted));
  }
});

Deno.test("createPolicyApprover() saves Always rules to the user's file and applies them", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "harness", "policies.jsonc");
  const saved: RuleSavedEvent[] = [];
  const prompter = scriptedPrompter([{ kind: "always" }]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: file,
    onRuleSaved: (event) => saved.push(event),
  });
  const first = await approver.approve(
    call("run_command", { command: "cargo build --release" }, "high"),
  );
  if (first.decision !== "allow" || first.rule !== `${file}#1`) {
    throw new Error(JSON.stringify(first));
  }
  if (prompter.asked[0]?.alwaysRule?.match?.command !== "cargo build *") {
    throw new Error(JSON.stringify(prompter.asked[0]));
  }
  const second = await approver.approve(call("run_command", { command: "cargo build" }, "high"));
  if (second.by !== "policy" || askedCount(prompter) !== 1) throw new Error(JSON.stringify(second));
  if (saved.length !== 1 || saved[0]?.error) throw new Error(JSON.stringify(saved));
  const reloaded = await loadPolicyFiles([{ path: file, required: true }]);
  if (!reloaded.ok || reloaded.value[0]?.match?.command !== "cargo build *") {
    throw new Error(await Deno.readTextFile(file));
  }
});

Deno.test("createPolicyApprover() reports a failed save and still allows this session", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "p.jsonc");
  await Deno.writeTextFile(file, "{ broken");
  const saved: RuleSavedEvent[] = [];
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter: scriptedPrompter([{ kind: "always" }]),
    userPolicyFile: file,
    onRuleSaved: (event) => saved.push(event),
  });
  const d = await approver.approve(call("write_file", { path: "src/a.ts" }, "medium"));
  if (d.decision !== "allow" || saved[0]?.error?.kind !== "config_invalid") {
    throw new Error(JSON.stringify(saved));
  }
  const again = await approver.approve(call("write_file", { path: "src/b.ts" }, "medium"));
  if (again.decision !== "allow") throw new Error(JSON.stringify(again));
});

Deno.test("createPolicyApprover() without a prompter settles asks like non-interactive", async () => {
  const approver = createPolicyApprover({ rules: [], mode: "interactive", userPolicyFile: "u" });
  const d = await approver.approve(call("write_file", { path: "a" }, "medium"));
  if (d.decision !== "deny" || d.by !== "mode") throw new Error(JSON.stringify(d));
});

/** Writes the user and project policy files and loads them in order. */
async function loadTwoFiles(dir: string, user: string | null, project: string) {
  const userFile = join(dir, "user", "policies.jsonc");
  const projectFile = join(dir, "project", ".harness", "policies.jsonc");
  await Deno.mkdir(join(dir, "project", ".harness"), { recursive: true });
  if (user !== null) {
    await Deno.mkdir(join(dir, "user"), { recursive: true });
    await Deno.writeTextFile(userFile, user);
  }
  await Deno.writeTextFile(projectFile, project);
  const refs = [{ path: userFile, required: false }, { path: projectFile, required: false }];
  const loaded = await loadPolicyFiles(refs);
  if (!loaded.ok) throw new Error(loaded.error.reason);
  return { userFile, projectFile, refs, rules: loaded.value };
}

function sameRules(a: readonly LoadedRule[], b: readonly LoadedRule[]): boolean {
  const text = (rules: readonly LoadedRule[]) =>
    JSON.stringify(rules.map((r) => [r.file, r.index, r.tool, r.match ?? null, r.action]));
  return text(a) === text(b);
}

Deno.test("createPolicyApprover() saves Always after a project ask rule so it sticks after a restart", async () => {
  await using dir = await tempDir();
  const files = await loadTwoFiles(
    dir.path,
    null,
    '{ "rules": [ { "tool": "run_command", "match": { "command": "cargo *" }, "action": "ask" } ] }',
  );
  const prompter = scriptedPrompter([{ kind: "always" }]);
  const saved: RuleSavedEvent[] = [];
  const approver = createPolicyApprover({
    rules: files.rules,
    mode: "interactive",
    prompter,
    userPolicyFile: files.userFile,
    onRuleSaved: (event) => saved.push(event),
  });
  const request = call("run_command", { command: "cargo build --release" }, "high");
  const first = await approver.approve(request);
  if (first.decision !== "allow" || first.rule !== `${files.projectFile}#2`) {
    throw new Error(JSON.stringify(first));
  }
  // The prompt names the file it saves to, and the event reports the same file.
  if (prompter.asked[0]?.alwaysFile !== files.projectFile) {
    throw new Error(JSON.stringify(prompter.asked[0]));
  }
  if (saved[0]?.file !== files.projectFile || saved[0].error) {
    throw new Error(JSON.stringify(saved));
  }
  const again = await approver.approve(call("run_command", { command: "cargo build" }, "high"));
  if (again.decision !== "allow" || askedCount(prompter) !== 1) throw new Error("asked again");

  // A restart loads the files again: the same rules in the same order, and no prompt.
  const reloaded = await loadPolicyFiles(files.refs);
  if (!reloaded.ok) throw new Error(reloaded.error.reason);
  if (!sameRules(approver.rules(), reloaded.value)) {
    throw new Error(`${JSON.stringify(approver.rules())}\n${JSON.stringify(reloaded.value)}`);
  }
  const d = evaluatePolicy(request, reloaded.value);
  if (d.action !== "allow" || d.source !== `${files.projectFile}#2`) throw new Error(d.source);
  const restarted = createPolicyApprover({
    rules: reloaded.value,
    mode: "interactive",
    prompter: scriptedPrompter([]),
    userPolicyFile: files.userFile,
  });
  const after = await restarted.approve(request);
  if (after.decision !== "allow" || after.by !== "policy") throw new Error(JSON.stringify(after));
});

Deno.test("createPolicyApprover() saves Always for a compound command after the latest asking rule", async () => {
  await using dir = await tempDir();
  const files = await loadTwoFiles(
    dir.path,
    '{ "rules": [ { "tool": "run_command", "match": { "command": "npm *" }, "action": "ask" } ] }',
    '{ "rules": [ { "tool": "run_command", "match": { "command": "git push *" }, "action": "ask" } ] }',
  );
  const prompter = scriptedPrompter([{ kind: "always" }]);
  const approver = createPolicyApprover({
    rules: files.rules,
    mode: "interactive",
    prompter,
    userPolicyFile: files.userFile,
  });
  const request = call("run_command", { command: "npm test && git push origin" }, "high");
  const first = await approver.approve(request);
  if (first.decision !== "allow" || prompter.asked[0]?.alwaysFile !== files.projectFile) {
    throw new Error(JSON.stringify([first, prompter.asked[0]]));
  }
  const reloaded = await loadPolicyFiles(files.refs);
  if (!reloaded.ok) throw new Error(reloaded.error.reason);
  if (!sameRules(approver.rules(), reloaded.value)) throw new Error("session and files differ");
  if (evaluatePolicy(request, reloaded.value).action !== "allow") throw new Error("asks again");
});

Deno.test("createPolicyApprover() saves Always to the user's file after its rules when only the risk default asked", async () => {
  await using dir = await tempDir();
  const files = await loadTwoFiles(
    dir.path,
    '{ "rules": [ { "tool": "ls", "action": "allow" } ] }',
    '{ "rules": [ { "tool": "write_file", "match": { "path": "src/**" }, "action": "ask" } ] }',
  );
  const prompter = scriptedPrompter([{ kind: "always" }]);
  const approver = createPolicyApprover({
    rules: files.rules,
    mode: "interactive",
    prompter,
    userPolicyFile: files.userFile,
  });
  const request = call("write_file", { path: "docs/a.md" }, "high");
  const first = await approver.approve(request);
  if (first.decision !== "allow" || prompter.asked[0]?.alwaysFile !== files.userFile) {
    throw new Error(JSON.stringify([first, prompter.asked[0]]));
  }
  const reloaded = await loadPolicyFiles(files.refs);
  if (!reloaded.ok) throw new Error(reloaded.error.reason);
  // In the session too, the new rule sits after the user's rules and before the project's.
  if (!sameRules(approver.rules(), reloaded.value) || reloaded.value[1]?.file !== files.userFile) {
    throw new Error(JSON.stringify(approver.rules()));
  }
  if (evaluatePolicy(request, reloaded.value).action !== "allow") throw new Error("asks again");
});

Deno.test("createPolicyApprover() saves an Always rule for an absolute path that matches it", async () => {
  await using dir = await tempDir();
  const workspace = join(dir.path, "work");
  const file = join(dir.path, "policies.jsonc");
  const prompter = scriptedPrompter([{ kind: "always" }]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: file,
    workspace,
  });
  const request = call("write_file", { path: join(workspace, "src", "a.ts") }, "medium");
  await approver.approve(request);
  // The user's file applies in every folder: the rule names this workspace's folder.
  if (prompter.asked[0]?.alwaysRule?.match?.path !== `${workspace}/src/**`) {
    throw new Error(JSON.stringify(prompter.asked[0]));
  }
  const reloaded = await loadPolicyFiles([{ path: file, required: true }]);
  if (!reloaded.ok) throw new Error(reloaded.error.reason);
  for (const path of [join(workspace, "src", "b.ts"), "src/c.ts"]) {
    const d = evaluatePolicy({ ...request, args: { path } }, reloaded.value, { workspace });
    if (d.action !== "allow") throw new Error(`${path}: ${d.source}`);
  }
});

Deno.test("createPolicyApprover() saves a relative path to the user's file as an absolute one", async () => {
  await using dir = await tempDir();
  const workspace = join(dir.path, "a");
  const file = join(dir.path, "policies.jsonc");
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter: scriptedPrompter([{ kind: "always" }]),
    userPolicyFile: file,
    workspace,
  });
  await approver.approve(call("write_file", { path: "x.txt" }, "medium"));
  const reloaded = await loadPolicyFiles([{ path: file, required: true }]);
  if (!reloaded.ok) throw new Error(reloaded.error.reason);
  const request = { tool: "write_file", args: { path: "x.txt" }, risk: "medium" as const };
  const here = evaluatePolicy(request, reloaded.value, { workspace }).action;
  const elsewhere = evaluatePolicy(request, reloaded.value, { workspace: join(dir.path, "b") });
  if (here !== "allow" || elsewhere.action !== "ask") {
    throw new Error(`${here} ${elsewhere.action}: ${await Deno.readTextFile(file)}`);
  }
});

Deno.test("createPolicyApprover() keeps relative paths in Always rules saved to the project file", async () => {
  await using dir = await tempDir();
  const files = await loadTwoFiles(
    dir.path,
    null,
    '{ "rules": [ { "tool": "write_file", "match": { "path": "**" }, "action": "ask" } ] }',
  );
  const prompter = scriptedPrompter([{ kind: "always" }]);
  const approver = createPolicyApprover({
    rules: files.rules,
    mode: "interactive",
    prompter,
    userPolicyFile: files.userFile,
    projectPolicyFile: files.projectFile,
    workspace: join(dir.path, "project"),
  });
  await approver.approve(call("write_file", { path: "src/a.ts" }, "medium"));
  const asked = prompter.asked[0];
  if (asked?.alwaysFile !== files.projectFile || asked.alwaysRule?.match?.path !== "src/**") {
    throw new Error(JSON.stringify(asked));
  }
});

Deno.test("createPolicyApprover() never offers Always when an untrusted project rule asked", async () => {
  await using dir = await tempDir();
  const projectText =
    '{ "rules": [ { "tool": "write_file", "match": { "path": "**" }, "action": "ask" } ] }';
  const files = await loadTwoFiles(dir.path, null, projectText);
  const prompter = scriptedPrompter([{ kind: "always" }, { kind: "always" }]);
  const saved: RuleSavedEvent[] = [];
  const approver = createPolicyApprover({
    rules: files.rules.map((rule) => ({ ...rule, untrusted: true as const })),
    mode: "interactive",
    prompter,
    userPolicyFile: files.userFile,
    projectPolicyFile: files.projectFile,
    workspace: join(dir.path, "project"),
    onRuleSaved: (event) => saved.push(event),
  });
  const d = await approver.approve(call("write_file", { path: "src/a.ts" }, "medium"));
  if (d.decision !== "allow" || prompter.asked[0]?.alwaysRule !== undefined || saved.length > 0) {
    throw new Error(JSON.stringify([d, prompter.asked[0], saved]));
  }
  // The repository's file is untouched and no user rule was written.
  if (await Deno.readTextFile(files.projectFile) !== projectText) throw new Error("wrote it");
  let userFileExists = true;
  await Deno.stat(files.userFile).catch(() => userFileExists = false);
  if (userFileExists) throw new Error("wrote the user's file");
});

Deno.test("createPolicyApprover() denies every call once the rules turn out broken", async () => {
  const approver = createPolicyApprover({
    rules: [],
    mode: "yes",
    userPolicyFile: "u",
    denyAll: Promise.resolve('Invalid policy file "u": line 1, column 3: unknown tool "x"'),
  });
  const d = await approver.approve(call("list_files", {}, "safe"));
  if (d.decision !== "deny" || !d.reason?.includes("unknown tool")) {
    throw new Error(JSON.stringify(d));
  }
});

Deno.test("createPolicyApprover() asks again for everything but safe tools once auto-approval stopped", async () => {
  const gate: { stopped?: string } = {};
  const allowGit: LoadedRule[] = [
    { tool: "run_command", match: { command: "git *" }, action: "allow", file: "u", index: 1 },
  ];
  const prompter = scriptedPrompter([{ kind: "session" }, { kind: "once" }, { kind: "once" }]);
  const options = { rules: allowGit, prompter, userPolicyFile: "u" };
  const interactive = createPolicyApprover({
    ...options,
    mode: "interactive",
    autoApprovalStopped: () => gate.stopped,
  });
  const yes = createPolicyApprover({
    ...options,
    mode: "yes",
    autoApprovalStopped: () => gate.stopped,
  });
  const print = createPolicyApprover({
    ...options,
    mode: "non_interactive",
    autoApprovalStopped: () => gate.stopped,
  });
  await interactive.approve(call("write_file", { path: "a" }, "medium"));
  const before = await yes.approve(call("write_file", { path: "a" }, "medium"));
  assertEquals([before.decision, askedCount(prompter)], ["allow", 1]);
  gate.stopped =
    'Auto-approval is off for this session: "/w/.env" (--deny-read) was moved or removed';
  // The session approval, the allow rule and --yes all ask now; read-only tools do not.
  await interactive.approve(call("write_file", { path: "a" }, "medium"));
  await yes.approve(call("run_command", { command: "git status" }, "high"));
  assertEquals(askedCount(prompter), 3);
  assertEquals(
    (await interactive.approve(call("read_file", { path: "a" }, "safe"))).decision,
    "allow",
  );
  const denied = await print.approve(call("run_command", { command: "git status" }, "high"));
  assertEquals(denied.decision, "deny");
  assert(denied.reason?.includes("was moved or removed"), denied.reason);
});
