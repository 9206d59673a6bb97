import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { exactCallKey, SessionApprovals } from "../../src/permissions/session_approvals.ts";
import type { ApprovalRequest } from "../../src/permissions/approver.ts";

function call(tool: string, args: unknown, risk: ApprovalRequest["risk"]): ApprovalRequest {
  return { callId: "1", tool, args, risk };
}

Deno.test("SessionApprovals.covers() allows calls an 'Allow for this session' rule matches", () => {
  const approvals = new SessionApprovals();
  const git = call("run_command", { command: "git status --short" }, "medium");
  assertEquals(approvals.covers(git, { lowDefault: false }), undefined);
  approvals.allowForSession(git, {
    tool: "run_command",
    match: { command: "git status *" },
    action: "allow",
  });
  assertEquals(approvals.covers(git, { lowDefault: false }), "session approval");
  const other = call("run_command", { command: "git push" }, "medium");
  assertEquals(approvals.covers(other, { lowDefault: false }), undefined);
});

Deno.test("SessionApprovals.covers() without a rule allows only the exact call again", () => {
  const approvals = new SessionApprovals();
  const heredoc = call("run_command", { command: "cat <<EOF\nx\nEOF" }, "medium");
  approvals.allowForSession(heredoc, undefined);
  assertEquals(
    approvals.covers({ ...heredoc, callId: "2" }, { lowDefault: false }),
    "session approval",
  );
  const changed = call("run_command", { command: "cat <<EOF\ny\nEOF" }, "medium");
  assertEquals(approvals.covers(changed, { lowDefault: false }), undefined);
});

Deno.test("SessionApprovals.covers() allows a low-risk tool asked once only while the default asks", () => {
  const approvals = new SessionApprovals();
  approvals.askedAboutLowRisk("ls");
  const ls = call("ls", { path: "src" }, "low");
  assertEquals(
    approvals.covers(ls, { lowDefault: true }),
    "session approval (low risk, asked once)",
  );
  // A rule that asks about ls is not settled by the tool's earlier answer.
  assertEquals(approvals.covers(ls, { lowDefault: false }), undefined);
});

Deno.test("SessionApprovals.covers() matches path rules relative to the workspace", () => {
  const approvals = new SessionApprovals();
  const rule = { tool: "write_file", match: { path: "src/**" }, action: "allow" as const };
  approvals.allowForSession(call("write_file", { path: "src/a.ts" }, "medium"), rule);
  const absolute = call("write_file", { path: "/w/src/b.ts" }, "medium");
  assertEquals(approvals.covers(absolute, { lowDefault: false }), undefined);
  assertEquals(
    approvals.covers(absolute, { lowDefault: false, workspace: "/w" }),
    "session approval",
  );
});

Deno.test("SessionApprovals.lines() lists every answer and clear() forgets them", () => {
  const approvals = new SessionApprovals();
  approvals.allowForSession(call("run_command", { command: "make" }, "medium"), {
    tool: "run_command",
    match: { command: "make *" },
    action: "allow",
  });
  approvals.allowForSession(call("run_command", { command: "a | b" }, "medium"), undefined);
  approvals.askedAboutLowRisk("grep_search");
  assertEquals(approvals.lines(), [
    'run_command {"command": "make *"}',
    'run_command {"command": "a | b"} (exactly)',
    "grep_search (low risk: any arguments)",
  ]);
  approvals.clear();
  assertEquals(approvals.lines(), []);
  assertEquals(approvals.covers(call("grep_search", {}, "low"), { lowDefault: true }), undefined);
});

Deno.test("exactCallKey() tells calls apart by tool and arguments, not by id", () => {
  const a = call("read_file", { path: "a" }, "low");
  assertEquals(exactCallKey(a), exactCallKey({ ...a, callId: "9" }));
  assertEquals(exactCallKey(call("read_file", undefined, "low")), "read_file {}");
  assertEquals(exactCallKey(a) === exactCallKey(call("read_file", { path: "b" }, "low")), false);
});
