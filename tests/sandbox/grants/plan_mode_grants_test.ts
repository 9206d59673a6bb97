// planModeGrants as a pure function (issue 41): plan mode's only write is the plan folder,
// every other permission stays, and what was writable and readable becomes scratch for the
// command sandbox, which mounts it as a throwaway overlay or read-only (bwrapArguments).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { planModeGrants } from "../../../src/sandbox/grants/plan_mode_grants.ts";
import { bwrapArguments } from "../../../src/sandbox/commands/command_sandbox_rules.ts";
import type { Grants } from "../../../src/sandbox/grants/grants.ts";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";

function grantsOf(flags: string[]): Grants {
  const parsed = parseGrantFlags(flags, { cwd: "/w" });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value.grants;
}

const options = { planFolder: "/d/plans/s1", workspace: "/w" };

Deno.test("planModeGrants() keeps only the plan folder writable and turns -W into the workspace as scratch", () => {
  const grants = grantsOf(["-A"]);
  const plan = planModeGrants(grants, options);
  assertEquals(plan.grants.allow.write, ["/d/plans/s1"]);
  assertEquals(plan.scratch, ["/w"]);
  for (const kind of ["read", "net", "run", "env", "sys", "ffi"] as const) {
    assertEquals(plan.grants.allow[kind], grants.allow[kind], kind);
  }
  assertEquals(grants.allow.write, true, "the user's grants are not changed");
});

Deno.test("planModeGrants() makes scratch only of write grants the read grant covers", () => {
  const plan = planModeGrants(
    grantsOf(["--allow-read=/w", "--allow-write=/w/out,/elsewhere", "--allow-run"]),
    options,
  );
  assertEquals(plan.scratch, ["/w/out"]);
  assertEquals(plan.grants.allow.write, ["/d/plans/s1"]);
});

Deno.test("planModeGrants() writes nothing when a deny list covers the plan folder or all writes", () => {
  const denied = planModeGrants(grantsOf(["-A", "--deny-write=/d"]), options);
  assertEquals(denied.grants.allow.write, []);
  const none = planModeGrants(grantsOf(["-A", "--deny-write"]), options);
  assertEquals([none.grants.allow.write, none.scratch], [[], []]);
});

Deno.test("bwrapArguments() mounts scratch as a throwaway overlay, or read-only, before the write grants", () => {
  const plan = planModeGrants(grantsOf(["--allow-read", "--allow-write", "--allow-run"]), {
    planFolder: "/w/plans",
    workspace: "/w",
  });
  const overlaid = bwrapArguments(plan.grants, {
    cwd: "/w",
    scratch: { paths: ["/tmp"], overlay: true },
  }).join(" ");
  assert(overlaid.includes("--ro-bind / /"), overlaid);
  assert(!overlaid.includes("--bind / /"), overlaid);
  assert(overlaid.includes("--overlay-src /tmp --tmp-overlay /tmp"), overlaid);
  assert(
    overlaid.indexOf("--tmp-overlay /tmp") < overlaid.indexOf("--bind-try /w/plans /w/plans"),
    `the plan folder's bind must come after the overlay that would hide it: ${overlaid}`,
  );
  const readOnly = bwrapArguments(plan.grants, {
    cwd: "/w",
    scratch: { paths: ["/tmp"], overlay: false },
  }).join(" ");
  assert(readOnly.includes("--ro-bind-try /tmp /tmp") && !readOnly.includes("overlay"), readOnly);
});

Deno.test("planModeGrants() adds the home folder to scratch for -W, outer folders first", () => {
  const plan = planModeGrants(grantsOf(["-A"]), {
    planFolder: "/d/plans",
    workspace: "/home/u/project",
    home: "/home/u",
  });
  assertEquals(plan.scratch, ["/home/u", "/home/u/project"]);
  const listed = planModeGrants(grantsOf(["-R", "--allow-write=/w"]), { ...options, home: "/h" });
  assertEquals(listed.scratch, ["/w"]);
});

Deno.test("describeCommandSandbox() says what plan mode does with what commands write", async () => {
  const { describeCommandSandbox } = await import(
    "../../../src/sandbox/commands/command_sandbox.ts"
  );
  const base = {
    mode: "auto" as const,
    confinement: { kind: "bwrap" as const, program: "/usr/bin/bwrap" },
    env: {},
  };
  const overlay = describeCommandSandbox({ ...base, scratch: { paths: ["/w"], overlay: true } });
  assert(overlay.includes("plan mode: what commands write in the workspace is thrown away"));
  const readOnly = describeCommandSandbox({ ...base, scratch: { paths: ["/w"], overlay: false } });
  assert(readOnly.includes("plan mode: the workspace is read-only (bubblewrap 0.9 or later"));
  assert(!describeCommandSandbox(base).includes("plan mode"));
});

Deno.test("planGateRules() lets the gate write the plan folder in the hidden data folder, only it", async () => {
  const { gateRules } = await import("../../../src/gate/protected_set.ts");
  const { FileGate } = await import("../../../src/gate/file_gate.ts");
  const { planGateRules } = await import("../../../src/sandbox/grants/plan_mode_grants.ts");
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const workspace = `${root}/ws`;
    const data = `${root}/data`;
    const planFolder = `${data}/plans/s1`;
    for (const dir of [workspace, planFolder, `${data}/sessions`]) {
      await Deno.mkdir(dir, { recursive: true });
    }
    const plan = planModeGrants(grantsOf(["-A"]), { planFolder, workspace });
    const rules = gateRules({
      workspace,
      grants: plan.grants,
      pluginFolders: [],
      harness: { config: `${root}/config`, data },
      writableGit: false,
    });
    const without = FileGate.open(rules);
    assert(!without.check("write", `${planFolder}/plan.md`).ok, "the data folder hides it");
    const gate = FileGate.open(planGateRules(rules, planFolder));
    assert(gate.check("write", `${planFolder}/plan.md`).ok);
    for (const path of [`${data}/sessions/x.db`, `${data}/plans/s2/plan.md`, `${workspace}/a.ts`]) {
      assert(!gate.check("write", path).ok, path);
    }
    assert(gate.check("read", `${workspace}/a.ts`).ok);
    // Refused by plan mode, which a flag would not change: the editor's files and the other
    // host-side writers say so, as the tool workers do (describe_not_capable.ts).
    const refused = gate.check("write", `${workspace}/a.ts`);
    assert(!refused.ok);
    assertEquals(
      refused.refusal.message,
      `Requires write access to "${workspace}/a.ts": plan mode writes only the plan folder ` +
        `"${planFolder}": write the plan there; files change once the user leaves plan mode`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
