// The "Edit" answer in createPolicyApprover (src/permissions/policy_approver.ts): a changed call
// is allowed once, for exactly the changed arguments, after the same checks as any call. Nothing
// wider (a session approval, a saved rule, the low-risk pass) comes from it, and a deny rule,
// trusted or not, denies the changed call as it would the model's.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createPolicyApprover } from "../../src/permissions/policy_approver.ts";
import type { ApprovalRequest, CallEditing } from "../../src/permissions/approver.ts";
import type { LoadedRule } from "../../src/permissions/policy.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { scriptedPrompter } from "../helpers/scripted_prompter.ts";

/** run_command's schema, as far as these tests need it: a string command, a default cwd. */
const editing = (sent: unknown): CallEditing => ({
  sent,
  validate(args) {
    const command = (args as { command?: unknown }).command;
    return Promise.resolve(
      typeof command === "string"
        ? { ok: true, value: { cwd: ".", ...(args as object), command } }
        : { ok: false, issues: ["command: expected string"] },
    );
  },
});

let id = 0;
function command(text: string, risk: ApprovalRequest["risk"] = "high"): ApprovalRequest {
  const args = { command: text, cwd: "." };
  return {
    callId: String(++id),
    tool: "run_command",
    args,
    risk,
    edit: editing({ command: text }),
  };
}

const DENY_RM: LoadedRule = {
  tool: "run_command",
  match: { command: "rm *" },
  action: "deny",
  reason: "no deleting",
  file: "u.jsonc",
  index: 1,
};

Deno.test("createPolicyApprover() allows a changed call once with exactly its arguments", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/policies.jsonc`;
  const saved: unknown[] = [];
  const prompter = scriptedPrompter([
    { kind: "edit", args: { command: "rm -rf build/tmp" } },
    { kind: "deny" },
    { kind: "deny" },
  ]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: file,
    onRuleSaved: (event) => saved.push(event),
  });
  const first = await approver.approve(command("rm -rf build"));
  assertEquals(first, {
    decision: "allow",
    by: "user",
    editedArgs: { cwd: ".", command: "rm -rf build/tmp" },
  });
  // The prompt offered the edit with the model's arguments as sent.
  assertEquals(prompter.asked[0]?.edit?.sent, { command: "rm -rf build" });
  // Neither the model's call nor the changed one is approved for later: both ask again.
  assertEquals((await approver.approve(command("rm -rf build"))).decision, "deny");
  assertEquals((await approver.approve(command("rm -rf build/tmp"))).decision, "deny");
  assertEquals(prompter.asked.length, 3);
  assertEquals(approver.sessionApprovals(), []);
  assertEquals(saved, []);
  assert(!(await Deno.stat(file).then(() => true, () => false)), "no policy file written");
});

Deno.test("createPolicyApprover() gives a changed low-risk call no pass for the tool", async () => {
  const prompter = scriptedPrompter([
    { kind: "edit", args: { command: "ls src" } },
    { kind: "once" },
  ]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  assertEquals((await approver.approve(command("ls", "low"))).decision, "allow");
  // "Allow once" of a low-risk tool lets its later calls run; an edit does not.
  assertEquals((await approver.approve(command("ls", "low"))).decision, "allow");
  assertEquals(prompter.asked.length, 2);
});

Deno.test("createPolicyApprover() denies a call the user changed into one a deny rule denies", async () => {
  const prompter = scriptedPrompter([{ kind: "edit", args: { command: "rm -rf /" } }]);
  const approver = createPolicyApprover({
    rules: [DENY_RM],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  const request = command("echo hi");
  const decision = await approver.approve(request);
  assertEquals(decision, {
    decision: "deny",
    by: "policy",
    reason: "The user changed this call, and a policy rule denies the changed call: no deleting",
    rule: "u.jsonc#1",
    editedArgs: { command: "rm -rf /" },
  });
  // The prompt's own check says so before the user confirms.
  const check = prompter.asked[0]?.edit?.check;
  assert(check);
  assertEquals(await check({ command: "rm -rf /" }), {
    ok: false,
    problem: "denied",
    message: "no deleting",
    rule: "u.jsonc#1",
  });
  assertEquals(await check({ command: "echo bye" }), {
    ok: true,
    value: { cwd: ".", command: "echo bye" },
  });
  assertEquals(await check({ command: 1 }), {
    ok: false,
    problem: "invalid",
    message: "command: expected string",
  });
});

Deno.test("createPolicyApprover() lets an untrusted project's deny rule deny a changed call", async () => {
  const untrusted: LoadedRule = { ...DENY_RM, file: ".harness/policies.jsonc", untrusted: true };
  const prompter = scriptedPrompter([{ kind: "edit", args: { command: "rm -rf src" } }]);
  const approver = createPolicyApprover({
    rules: [untrusted],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  const decision = await approver.approve(command("git status"));
  assertEquals([decision.decision, decision.by], ["deny", "policy"]);
});

Deno.test("createPolicyApprover() denies an edit whose arguments the schema refuses", async () => {
  const prompter = scriptedPrompter([{ kind: "edit", args: { command: ["rm"] } }]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  const decision = await approver.approve(command("echo"));
  assertEquals([decision.decision, decision.by], ["deny", "user"]);
  assert(decision.reason?.includes("command: expected string"), decision.reason);
});

Deno.test("createPolicyApprover() offers no edit for a call that brings no edit seam", async () => {
  const prompter = scriptedPrompter([{ kind: "once" }]);
  const approver = createPolicyApprover({
    rules: [],
    mode: "interactive",
    prompter,
    userPolicyFile: "u",
  });
  const { edit: _, ...plain } = command("echo");
  await approver.approve(plain);
  assertEquals(prompter.asked[0]?.edit, undefined);
});
