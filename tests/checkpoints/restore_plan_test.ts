// planPaths() as a table: what each path goes back to, and when it is a conflict (someone
// changed it after a turn, or between two), left alone (its earlier state is unknown), a
// removal (the turns created it) or nothing to do.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { planPaths, type ResolvedTurn } from "../../src/checkpoints/restore_plan.ts";

const v = (n: number) => `100644 ${String(n).repeat(40)}`;
const turn = (states: Record<string, [string, string]>): ResolvedTurn => ({
  files: Object.keys(states),
  states: new Map(Object.entries(states)),
});

Deno.test("planPaths() goes back to the oldest turn's state; the newest turn's is compared", () => {
  const plan = planPaths(
    [turn({ a: [v(1), v(2)] }), turn({ a: [v(2), v(3)], b: ["absent", v(4)] })],
    new Map([["a", v(3)], ["b", v(4)]]),
  );
  assertEquals(plan, {
    paths: ["a", "b"],
    targets: { a: v(1), b: "absent" },
    conflicts: [],
    removals: ["b"],
    left: [],
  });
});

Deno.test("planPaths(): a change after the turn, or between two turns, is a conflict", () => {
  const after = planPaths([turn({ a: [v(1), v(2)] })], new Map([["a", v(9)]]));
  assertEquals(after.conflicts, ["a"]);
  const between = planPaths(
    [turn({ a: [v(1), v(2)] }), turn({ a: [v(5), v(6)] })],
    new Map([["a", v(6)]]),
  );
  assertEquals(between.conflicts, ["a"]);
  const deleted = planPaths([turn({ a: ["absent", v(2)] })], new Map([["a", "absent"]]));
  assertEquals([deleted.conflicts, deleted.targets], [[], {}], "already as it was");
});

Deno.test("planPaths(): an unknown earlier state is left; an unknown later one is asked", () => {
  const plan = planPaths(
    [turn({ ".env": ["ignored", v(2)], cut: [v(1), "cut-short"], big: [v(1), "oversize"] })],
    new Map([[".env", v(2)], ["cut", v(3)], ["big", "oversize"]]),
  );
  assertEquals(plan.left.map((entry) => entry.path), [".env"]);
  assertEquals(plan.conflicts, ["big", "cut"]);
  assertEquals(plan.removals, []);
});
