// skillCatalog(): every skill's line while they fit the budget, names and find_skill past it,
// within max(1% of the window, 300 tokens) for the benchmark's 200 skills.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { TokenCounter } from "../../src/providers/token_counter.ts";
import { oneLine, skillBudget, skillCatalog } from "../../src/skills/skill_catalog.ts";
import { benchSkills } from "../helpers/skill_bench.ts";

const counter = new TokenCounter();
const tokens = (text: string) => counter.text(text);
const skills = benchSkills().map((s) => ({ ...s, scope: "user" as const }));

Deno.test("skillCatalog() lists every skill with its line while they fit, the project's first", () => {
  const few = [
    { name: "zeta", description: "User's.", scope: "user" as const },
    { name: "alpha", description: "Also the user's.", scope: "user" as const },
    { name: "mid", description: "The project's own skill.", scope: "project" as const },
  ];
  const catalog = skillCatalog(few, { budget: 300, tokens });
  assertEquals(catalog.text.split("\n").slice(2), [
    "- mid: The project's own skill.",
    "- alpha: Also the user's.",
    "- zeta: User's.",
  ]);
  assertEquals([catalog.described, catalog.searchable], [3, false]);
});

Deno.test("skillCatalog() of 200 skills stays within max(1% of the window, 300 tokens) and names what fits", () => {
  for (const window of [8192, 32768, 131072]) {
    const budget = skillBudget(window);
    const catalog = skillCatalog(skills, { budget, tokens });
    assert(tokens(catalog.text) <= budget, `${window}: ${tokens(catalog.text)} > ${budget}`);
    assert(catalog.searchable && catalog.named > 0, `${window}`);
    const tail = catalog.named === 200 ? "They are: " : `and ${200 - catalog.named} more.`;
    assert(catalog.text.includes(tail), catalog.text);
  }
  assertEquals(skillCatalog([], { budget: 300, tokens }).text, "");
});

Deno.test("oneLine() leaves out <example> blocks and cuts long descriptions", () => {
  const long = "Use this agent when the code changed. ".repeat(10);
  assert(oneLine(long).length <= 100);
  assertEquals(oneLine("Short:\n\n<example>\nuser: hi\n</example>"), "Short:");
});
