// childScope as a pure function (issue 41): a child's tools and grants are the parent's
// intersected with its agent's, the parent's deny lists stay, `task` needs the agent's say-so
// and room under max_agent_depth, and refusals say what to do.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  childScope,
  describeChildRefusal,
  describeLeftOut,
  intersectGrant,
  type Scope,
} from "../../../src/sandbox/grants/child_scope.ts";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";

function parent(flags: string[], tools: string[], depth = 0): Scope {
  const parsed = parseGrantFlags(flags, { cwd: "/w" });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return { tools, grants: parsed.value.grants, depth, autoApprove: true };
}

const known = new Set(["read_file", "write_file", "run_command", "grep_search", "task"]);

Deno.test("childScope() leaves out tools the parent lacks, even when the agent names them", () => {
  // A parent in plan mode has no write_file: its child cannot get it back.
  const scope = childScope(
    parent(["-A"], ["read_file", "grep_search", "run_command", "task"]),
    { name: "fixer", tools: ["read_file", "write_file", "run_command"] },
    { workspace: "/w", maxDepth: 1, known },
  );
  assert(scope.ok);
  assertEquals(scope.value.tools, ["read_file", "run_command"]);
});

Deno.test("childScope() without a tool list inherits the parent's tools but not task", () => {
  const scope = childScope(parent(["-A"], ["read_file", "task"]), { name: "any" }, {
    workspace: "/w",
    maxDepth: 3,
    known,
  });
  assert(scope.ok);
  assertEquals(scope.value.tools, ["read_file"]);
});

Deno.test("childScope() gives task to an agent that names it while a grandchild fits the limit", () => {
  const options = { workspace: "/w", maxDepth: 2, known };
  const agent = { name: "lead", tools: ["read_file", "task"] };
  const child = childScope(parent(["-A"], ["read_file", "task"]), agent, options);
  assert(child.ok);
  assertEquals([child.value.tools, child.value.depth], [["read_file", "task"], 1]);
  const grandchild = childScope(child.value, agent, options);
  assert(grandchild.ok);
  assertEquals([grandchild.value.tools, grandchild.value.depth], [["read_file"], 2]);
  const refused = childScope(grandchild.value, agent, options);
  assert(!refused.ok && refused.error.kind === "too_deep");
  assert(describeChildRefusal(refused.error).includes("max_agent_depth is 2"));
});

Deno.test("childScope() intersects paths and keeps the parent's deny lists and other grants", () => {
  const scope = childScope(
    parent(["--allow-read=.", "--allow-write=src,docs", "--allow-run", "--deny-read=.env"], [
      "read_file",
    ]),
    { name: "docs", read: ["docs", "/etc"], write: ["docs/api", "/tmp"] },
    { workspace: "/w", maxDepth: 1, known },
  );
  assert(scope.ok);
  const { allow, deny } = scope.value.grants;
  assertEquals([allow.read, allow.write, allow.run], [["/w/docs"], ["/w/docs/api"], true]);
  assertEquals(deny.read, ["/w/.env"]);
});

Deno.test("childScope() leaves out tool names harness does not know, and says which", () => {
  const scope = childScope(parent(["-A"], ["read_file", "run_command"]), {
    name: "explorer",
    tools: ["read_file", "NotebookRead", "write_file", "KillShell"],
  }, { workspace: "/w", maxDepth: 1, known });
  assert(scope.ok);
  assertEquals(scope.value.tools, ["read_file"]);
  assertEquals(scope.value.leftOut, [
    { name: "NotebookRead", why: "unknown" },
    { name: "write_file", why: "not_offered" },
    { name: "KillShell", why: "unknown" },
  ]);
  assertEquals(
    describeLeftOut("explorer", scope.value.leftOut),
    'Agent "explorer" runs without "NotebookRead" (harness has no such tool), "write_file" ' +
      '(this conversation does not offer it), "KillShell" (harness has no such tool)',
  );
});

Deno.test("childScope() never runs a child without approvals its parent needs", () => {
  const asking = { ...parent(["-A"], ["read_file"]), autoApprove: false };
  const options = { workspace: "/w", maxDepth: 1, known };
  const child = childScope(asking, { name: "y", autoApprove: true }, options);
  assert(child.ok && !child.value.autoApprove);
  const stricter = childScope(
    parent(["-A"], ["read_file"]),
    { name: "n", autoApprove: false },
    options,
  );
  assert(stricter.ok && !stricter.value.autoApprove);
});

Deno.test("intersectGrant() keeps what both grants allow", () => {
  assertEquals(intersectGrant("write", true, ["/w/a"]), ["/w/a"]);
  assertEquals(intersectGrant("write", ["/w"], true), ["/w"]);
  assertEquals(intersectGrant("write", ["/w/a"], ["/w"]), ["/w/a"]);
  assertEquals(intersectGrant("write", ["/w/a"], ["/x"]), []);
});

Deno.test("childScope() keeps a child of a plan-mode parent in plan mode, within its reads", () => {
  const planning = { ...parent(["-A"], ["read_file", "run_command"]), scratch: ["/w", "/home/u"] };
  const child = childScope(planning, { name: "c", read: ["src"] }, {
    workspace: "/w",
    maxDepth: 1,
    known,
  });
  assert(child.ok);
  assertEquals(child.value.scratch, ["/w/src"]);
  const whole = childScope(planning, { name: "c" }, { workspace: "/w", maxDepth: 1, known });
  assert(whole.ok);
  assertEquals(whole.value.scratch, ["/w", "/home/u"]);
  const normal = childScope(parent(["-A"], ["read_file"]), { name: "c" }, {
    workspace: "/w",
    maxDepth: 1,
    known,
  });
  assert(normal.ok && normal.value.scratch === undefined);
});
