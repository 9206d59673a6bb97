// The 200 skills and 50 task prompts of find_skill's benchmark (tests/fixtures/skill_bench/,
// written before the search), and the SKILL.md folders they make: bench/skills_bench.ts and
// the skill tests install them in a temp home.

import { fileURLToPath } from "node:url";

const FOLDER = fileURLToPath(new URL("../fixtures/skill_bench/", import.meta.url));

/** One generated skill. */
export interface BenchSkill {
  name: string;
  description: string;
  headings: string[];
}

/** One task prompt and the skill that serves it. */
export interface BenchPrompt {
  expected: string;
  prompt: string;
}

function rows(file: string): string[][] {
  return Deno.readTextFileSync(`${FOLDER}${file}`).split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => line.split("|").map((part) => part.trim()));
}

/** The 200 skills. */
export function benchSkills(): BenchSkill[] {
  return rows("skills.txt").map(([name, description, headings]) => ({
    name: name!,
    description: description!,
    headings: headings!.split(";").map((heading) => heading.trim()),
  }));
}

/** The 50 prompts of prompts.txt, or of another file there (held_out_prompts.txt). */
export function benchPrompts(file = "prompts.txt"): BenchPrompt[] {
  return rows(file).map(([expected, prompt]) => ({
    expected: expected!,
    prompt: prompt!,
  }));
}

/** The SKILL.md of a generated skill: front matter, a title, a section per heading. */
export function benchSkillText(skill: BenchSkill): string {
  const sections = skill.headings.map((heading) =>
    `## ${heading}\n\nSteps for ${heading.toLowerCase()} when you ${
      skill.description[0]!.toLowerCase()
    }${skill.description.slice(1)}.`
  );
  return `---\nname: ${skill.name}\ndescription: ${skill.description}\n---\n\n# ${skill.name}\n\n${
    sections.join("\n\n")
  }\n`;
}

/** Writes the skills as SKILL.md folders under `dir` (e.g. HOME/.claude/skills). */
export function writeBenchSkills(dir: string, skills = benchSkills()): void {
  for (const skill of skills) {
    Deno.mkdirSync(`${dir}/${skill.name}`, { recursive: true });
    Deno.writeTextFileSync(`${dir}/${skill.name}/SKILL.md`, benchSkillText(skill));
  }
}

/** What the catalog cost in the first request. */
export interface CatalogCost {
  window: number;
  /** Tokens of the first request without skills and with the 200. */
  without: number;
  with: number;
  /** max(1% of the window, 300). */
  budget: number;
}

async function firstRequestTokens(window: number, skills: boolean): Promise<number> {
  const { startFakeLlmServer, reply } = await import("./fake_llm_server.ts");
  const { cliSandbox } = await import("./run_cli.ts");
  await using sandbox = await cliSandbox();
  if (skills) writeBenchSkills(`${sandbox.home}/.claude/skills`);
  await using server = startFakeLlmServer([reply().text("ok")], {
    llamaServer: { charsPerToken: 4, window },
  });
  const out = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl, "--model", "m"]);
  if (out.code !== 0) throw new Error(`harness -p failed: ${out.stderr}`);
  return server.cache!.log[0]!.prompt;
}

/**
 * The tokens the 200 skills add to harness -p's first request (the catalog and the skill tools'
 * schemas), as a llama-server counting four characters a token sees them.
 */
export async function catalogCost(window: number): Promise<CatalogCost> {
  const [without, withSkills] = await Promise.all([
    firstRequestTokens(window, false),
    firstRequestTokens(window, true),
  ]);
  return { window, without, with: withSkills, budget: Math.max(300, Math.floor(window / 100)) };
}

/** What a 20-turn REPL session with skills sent. */
export interface PrefixSession {
  requests: import("./fake_llm_server.ts").RecordedRequest[];
  /** Requests whose messages did not start with the previous request's. */
  breaks: number;
  /** Requests whose system prompt or tools differed from the first's. */
  changedPrefix: number;
  /** Tokens the server processed against the tokens of the messages each turn added. */
  processed: number;
  stderr: string;
}

/**
 * Runs the REPL for 20 user messages with the 200 skills installed: two skills are loaded (one
 * of them twice) and one is added on disk after turn 10.
 */
export async function prefixSession(): Promise<PrefixSession> {
  const { startFakeLlmServer, reply } = await import("./fake_llm_server.ts");
  const { cliSandbox } = await import("./run_cli.ts");
  await using sandbox = await cliSandbox();
  const skills = `${sandbox.home}/.claude/skills`;
  writeBenchSkills(skills);
  const lines = Array.from({ length: 20 }, (_, i) => `turn ${i + 1}`);
  lines[3] = "load pdf-merge-split";
  lines[8] = "load csv-clean";
  lines[13] = "load pdf-merge-split";
  lines[15] = "load release-notes-helper";
  let answered = 0;
  await using server = startFakeLlmServer((request) => {
    const last = request.messages.at(-1)!;
    const asked = last.role === "user" ? /load ([\w-]+)/.exec(String(last.content)) : null;
    if (asked) return reply().toolCall("skill", { name: asked[1] });
    answered++;
    if (answered === 10) {
      writeBenchSkills(skills, [{
        name: "release-notes-helper",
        description: "Draft release notes from the merged pull requests of a milestone",
        headings: ["Collecting changes"],
      }]);
    }
    return reply().text(`answer ${answered}`);
  }, { llamaServer: { charsPerToken: 4, window: 32768 } });
  const child = sandbox.spawn(["--base-url", server.baseUrl, "--model", "m"]);
  const writer = child.stdin.getWriter();
  const stderr = new Response(child.stderr).text();
  const stdout = new Response(child.stdout).text();
  await writer.write(new TextEncoder().encode(lines.map((line) => `${line}\n`).join("")));
  await writer.close();
  await child.status;
  await stdout;
  const requests = server.requests;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  let breaks = 0;
  let changedPrefix = 0;
  for (let i = 1; i < requests.length; i++) {
    const before = requests[i - 1]!.messages;
    if (!same(requests[i]!.messages.slice(0, before.length), before)) breaks++;
    if (
      !same(requests[i]!.messages[0], requests[0]!.messages[0]) ||
      !same(requests[i]!.tools, requests[0]!.tools)
    ) changedPrefix++;
  }
  const processed = server.cache!.totals().processed;
  return { requests, breaks, changedPrefix, processed, stderr: await stderr };
}
