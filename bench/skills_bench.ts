// Benchmark: skills (issue 42's three measurements). The tokens 200 installed skills add to the
// first request of `harness -p` (catalog and skill tools) against the same request without
// them, per window, with the budget max(1% of the window, 300); find_skill's top-3 hits on the
// 50 task prompts written before the search (tests/fixtures/skill_bench/) and on 50 held out from
// its tuning; and a 20-turn REPL session with two loads and one skill added on disk: requests
// whose prefix changed.
// Run: deno run -A --unstable-worker-options bench/skills_bench.ts

import { join } from "node:path";
import { discoverSkills } from "../src/skills/skill_files.ts";
import { SkillIndex } from "../src/skills/skill_search.ts";
import {
  benchPrompts,
  catalogCost,
  prefixSession,
  writeBenchSkills,
} from "../tests/helpers/skill_bench.ts";

for (const window of [8192, 32768, 131072]) {
  const cost = await catalogCost(window);
  const added = cost.with - cost.without;
  console.log(
    `catalog ${window}-token window: +${added} tokens for 200 skills (${cost.without} -> ${cost.with}), ` +
      `budget ${cost.budget}, ${(added / cost.budget).toFixed(2)}x of it`,
  );
}

const home = await Deno.makeTempDir({ prefix: "skills_bench_" });
writeBenchSkills(join(home, ".claude", "skills"));
const started = performance.now();
const { skills } = await discoverSkills({ cwd: await Deno.makeTempDir(), home });
const discovered = performance.now() - started;
const index = new SkillIndex(skills);
const topThree = (file: string) => {
  const prompts = benchPrompts(file);
  const hits = prompts.filter(({ expected, prompt }) =>
    index.search(prompt, 3).some((match) => match.skill.name === expected)
  );
  return `${hits.length}/${prompts.length}`;
};
const searchStarted = performance.now();
const tuned = topThree("prompts.txt");
const perQuery = (performance.now() - searchStarted) / 50;
console.log(
  `find_skill: right skill in the first three for ${tuned} prompts (required 45); ` +
    `discovery of 200 skills ${discovered.toFixed(0)} ms, ${perQuery.toFixed(2)} ms a search`,
);
// Written after the search was tuned on prompts.txt, and never tuned against.
console.log(
  `find_skill on the held-out prompts: ${topThree("held_out_prompts.txt")} in the first three`,
);

const session = await prefixSession();
console.log(
  `20-turn session, 2 skills loaded (one twice), 1 added: ${session.requests.length} requests, ` +
    `${session.changedPrefix} with another system prompt or tools, ${session.breaks} not extending ` +
    `the one before; ${session.processed} tokens processed by the server`,
);
