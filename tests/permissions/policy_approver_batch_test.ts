// approveTogether(): the calls that would each prompt are asked about in one prompt (real
// prompter, scripted keys); rules, session approvals and the run mode still settle the others,
// and an answer applies only to a call the user was shown.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { createPolicyApprover } from "../../src/permissions/policy_approver.ts";
import { createPrompter } from "../../src/ui/prompter.ts";
import type { KeyIO } from "../../src/permissions/prompt_types.ts";
import type { LoadedRule } from "../../src/permissions/policy.ts";
import type {
  ApprovalDecision,
  ApprovalRequest,
  Approver,
} from "../../src/permissions/approver.ts";
import { tempDir } from "../helpers/temp_dir.ts";

function scriptedIO(keys: string[], lines: (string | null)[] = []): KeyIO & { output: string } {
  const io = {
    output: "",
    readKey: () => Promise.resolve(keys.shift() ?? ""),
    readLine: (prompt: string) => {
      io.output += prompt;
      return Promise.resolve(lines.length > 0 ? lines.shift()! : null);
    },
    write: (text: string) => {
      io.output += text;
    },
  };
  return io;
}

const RULES: LoadedRule[] = [
  { tool: "write_file", match: { path: "secret/**" }, action: "deny", file: "u", index: 1 },
  { tool: "write_file", match: { path: "ok/**" }, action: "allow", file: "u", index: 2 },
];

const req = (
  callId: string,
  tool: string,
  args: unknown,
  risk: ApprovalRequest["risk"] = "medium",
): ApprovalRequest => ({ callId, tool, args, risk });

const TURN = [
  req("1", "write_file", { path: "a.txt" }),
  req("2", "write_file", { path: "ok/b.txt" }), // allowed by a rule
  req("3", "run_command", { command: "make" }, "high"),
  req("4", "write_file", { path: "secret/key" }), // denied by a rule
  req("5", "write_file", { path: "c.txt" }),
];

function approverWith(io: KeyIO, mode: "interactive" | "yes" | "non_interactive" = "interactive") {
  return createPolicyApprover({
    rules: RULES,
    mode,
    prompter: createPrompter({ io, color: false }),
    userPolicyFile: "u",
  });
}

async function decideAll(approver: Approver, requests: ApprovalRequest[]) {
  const out: ApprovalDecision[] = [];
  for (const request of requests) out.push(await approver.approve(request));
  return out;
}

Deno.test("approveTogether() lists only the calls that would prompt; approve all allows them", async () => {
  const io = scriptedIO(["a"]);
  const approver = approverWith(io);
  const turn = await approver.approveTogether(TURN);
  const listed = io.output.split("\n").filter((line) => /^ {2}\d\. /.test(line));
  assertEquals(listed, [
    '  1. write_file  {"path": "a.txt"}  risk: MEDIUM',
    '  2. run_command  {"command": "make"}  risk: HIGH',
    '  3. write_file  {"path": "c.txt"}  risk: MEDIUM',
  ]);
  const decisions = await decideAll(turn, TURN);
  assertEquals(decisions.map((d) => `${d.decision}/${d.by}`), [
    "allow/user",
    "allow/policy",
    "allow/user",
    "deny/policy",
    "allow/user",
  ]);
  assertEquals(io.output.match(/Permission request/g)?.length, 1, io.output);
  // Approve all is "once": the next turn asks again.
  const again = scriptedIO(["4"], [""]);
  const next = createPolicyApprover({
    rules: RULES,
    mode: "interactive",
    prompter: createPrompter({ io: again, color: false }),
    userPolicyFile: "u",
  });
  assertEquals((await next.approve(TURN[0]!)).decision, "deny");
});

Deno.test("approveTogether(): deny all gives each call the one-call prompt's denial", async () => {
  const io = scriptedIO(["d"], ["too many"]);
  const turn = await approverWith(io).approveTogether(TURN);
  const decisions = await decideAll(turn, TURN);
  assertEquals(decisions.map((d) => `${d.decision}/${d.by}`), [
    "deny/user",
    "allow/policy",
    "deny/user",
    "deny/policy",
    "deny/user",
  ]);
  assertEquals(decisions[0]!.reason, "The user denied this call: too many");
  assert(!decisions.some((d) => d.abortTurn), JSON.stringify(decisions));
});

Deno.test("approveTogether(): one by one falls back to the one-call prompt, Always included", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "policies.jsonc");
  const io = scriptedIO(["o", "1", "4", "3"], [""]);
  const approver = createPolicyApprover({
    rules: RULES,
    mode: "interactive",
    prompter: createPrompter({ io, color: false }),
    userPolicyFile: file,
    workspace: dir.path,
  });
  const turn = await approver.approveTogether(TURN);
  const decisions = await decideAll(turn, TURN);
  assertEquals(decisions.map((d) => `${d.decision}/${d.by}`), [
    "allow/user",
    "allow/policy",
    "deny/user",
    "deny/policy",
    "allow/user",
  ]);
  assertEquals(io.output.match(/Permission request {2}/g)?.length, 3, io.output);
  assert((await Deno.readTextFile(file)).includes("c.txt"));
});

Deno.test("approveTogether(): Ctrl-C or end of input denies every call and stops the turn", async () => {
  for (const key of ["\x03", ""]) {
    const turn = await approverWith(scriptedIO([key])).approveTogether(TURN);
    const decisions = await decideAll(turn, TURN);
    // Nothing runs, not even the call a rule allows: the user stopped the turn.
    assert(decisions.every((d) => d.decision === "deny" && d.abortTurn), JSON.stringify(decisions));
    assertEquals(decisions[3]!.by, "policy");
    assertEquals(decisions[0]!.by, "user");
  }
});

Deno.test("approveTogether() attack: a call the user was not shown is asked about on its own", async () => {
  const io = scriptedIO(["a", "4", "4", "4"], ["", "", ""]);
  const turn = await approverWith(io).approveTogether(TURN);
  // Same id, other arguments; same arguments, other id; a listed call approved a second time.
  const swapped = await turn.approve(req("1", "write_file", { path: "../../etc/passwd" }));
  const otherId = await turn.approve(req("9", "write_file", { path: "a.txt" }));
  const first = await turn.approve(TURN[0]!);
  const twice = await turn.approve(TURN[0]!);
  assertEquals(
    [swapped, otherId, first, twice].map((d) => `${d.decision}/${d.by}`),
    ["deny/user", "deny/user", "allow/user", "deny/user"],
  );
  assertEquals(io.output.match(/Permission request {2}/g)?.length, 3, io.output);
});

Deno.test("approveTogether() attack: a call a rule denies is never listed nor approved", async () => {
  // The model reuses one id for a call the user may approve and one a rule denies.
  const calls = [
    req("1", "write_file", { path: "a.txt" }),
    req("1", "write_file", { path: "secret/key" }),
    req("2", "write_file", { path: "c.txt" }),
  ];
  const io = scriptedIO(["a"]);
  const turn = await approverWith(io).approveTogether(calls);
  assert(!io.output.includes("secret"), io.output);
  const decisions = await decideAll(turn, [calls[1]!, calls[0]!, calls[2]!]);
  assertEquals(decisions.map((d) => `${d.decision}/${d.by}`), [
    "deny/policy",
    "allow/user",
    "allow/user",
  ]);
  assertEquals(decisions[0]!.rule, "u#1");
});

Deno.test("approveTogether() keeps one prompt for one call, and never prompts under --yes or -p", async () => {
  const single = scriptedIO(["a"]);
  const approver = approverWith(single);
  const turn = await approver.approveTogether([TURN[0]!, TURN[1]!, TURN[3]!]);
  assertEquals(turn, approver);
  assertEquals(single.output, "");
  for (const mode of ["yes", "non_interactive"] as const) {
    const io = scriptedIO([]);
    const other = approverWith(io, mode);
    assertEquals(await other.approveTogether(TURN), other);
    assertEquals(io.output, "");
    const decisions = await decideAll(other, TURN);
    assertEquals(decisions[0]!.decision, mode === "yes" ? "allow" : "deny");
    assertEquals(decisions[3]!.decision, "deny");
  }
});

Deno.test("approveTogether() leaves out calls a session approval already covers", async () => {
  const io = scriptedIO(["2", "a"]);
  const approver = approverWith(io);
  assertEquals(
    (await approver.approve(req("0", "run_command", { command: "make" }, "high"))).decision,
    "allow",
  );
  const turn = await approver.approveTogether(TURN);
  const listed = io.output.split("\n").filter((line) => /^ {2}\d\. /.test(line));
  assertEquals(listed.length, 2, io.output);
  assert(!listed.some((line) => line.includes("make")), io.output);
  const decisions = await decideAll(turn, TURN);
  assertEquals(decisions[2]!.rule, "session approval");
});
