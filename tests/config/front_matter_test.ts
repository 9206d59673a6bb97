// readFrontMatter() against the tolerances real files need, one test each, most on a real file
// from tests/fixtures/real_files (SOURCES says where it came from).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { fieldText, listField, readFrontMatter } from "../../src/config/front_matter.ts";
import { realFile, realFiles } from "../helpers/real_files.ts";

const read = (fixture: string) => readFrontMatter(Deno.readTextFileSync(realFile(fixture)));

Deno.test("readFrontMatter() reads an unquoted value holding ': ' as text (a real agent file)", () => {
  const fm = read(
    "agents/awesome-claude-code-subagents/categories/04-quality-security/gdpr-ccpa-compliance.md",
  );
  assertEquals(fm.reading, "quoted");
  assert(fm.yamlError?.includes("Nested mappings"));
  assert(fieldText(fm, "description")?.includes("Triggers on: 'GDPR'"));
  assertEquals(listField(fm.fields.tools), ["Read", "Grep", "Glob", "WebFetch", "WebSearch"]);
});

Deno.test("readFrontMatter() reads `tools: *`, an empty alias to YAML, as text", () => {
  const fm = read(
    "agents/claude-code-templates/cli-tool/components/agents/data-ai/monday-bug-fixer.md",
  );
  assertEquals(fm.fields.tools, "*");
  assertEquals(fieldText(fm, "name"), "monday-bug-fixer");
});

Deno.test("fieldText() turns a description's literal \\n into lines, keeping <example> blocks", () => {
  const fm = read(
    "agents/claude-code-templates/cli-tool/components/agents/ai-specialists/llm-architect.md",
  );
  const description = fieldText(fm, "description")!;
  assert(!description.includes("\\n"));
  assert(description.includes("Specifically:\n\n<example>\nContext:"));
});

Deno.test("readFrontMatter() reads folded (>-) and literal (|) block scalars", () => {
  const folded = read("agents/agents/plugins/meigen-ai-design/agents/image-generator.md");
  assert(
    fieldText(folded, "description")!.startsWith(
      "Image generation executor agent. Delegates here for ALL generate_image calls",
    ),
  );
  const literal = read("agents/claude-plugins-official/plugins/plugin-dev/agents/agent-creator.md");
  assert(fieldText(literal, "description")!.includes("\n"));
  const lines = readFrontMatter("---\ndescription: |\n\tfirst: line\n\tsecond\nname: x\n---\n");
  assertEquals(lines.reading, "quoted");
  assertEquals(fieldText(lines, "description"), "first: line\nsecond");
});

Deno.test("fieldText() gives `argument-hint: [file]` as the text an agent shows, not a list", () => {
  const list = readFrontMatter("---\nname: review\nargument-hint: [file]\n---\nReview.");
  assertEquals([list.reading, list.fields["argument-hint"]], ["yaml", ["file"]]);
  assertEquals(fieldText(list, "argument-hint"), "[file]");
  const fm = readFrontMatter("---\nname: commit\nargument-hint: [message] [--amend]\n---\nC.");
  assertEquals(fm.reading, "quoted");
  assertEquals(fieldText(fm, "argument-hint"), "[message] [--amend]");
});

Deno.test("listField() reads tools as a comma string, a space string, a list and patterns", () => {
  const comma = read("agents/claude-plugins-official/plugins/feature-dev/agents/code-explorer.md");
  assertEquals(listField(comma.fields.tools)?.slice(0, 3), ["Glob", "Grep", "LS"]);
  const list = read("agents/claude-plugins-official/plugins/plugin-dev/agents/agent-creator.md");
  assertEquals(listField(list.fields.tools), ["Write", "Read"]);
  const patterns = read("skills/awesome-copilot/skills/make-repo-contribution/SKILL.md");
  const allowed = listField(patterns.fields["allowed-tools"])!;
  assert(allowed.includes("Bash(git:*)") && allowed.includes("Bash(gh issue:*)"), String(allowed));
  const mcp = read("agents/agents/plugins/meigen-ai-design/agents/image-generator.md");
  assertEquals(listField(mcp.fields.tools), ["mcp__meigen__generate_image"]);
  assertEquals(listField("Read Grep Glob Bash"), ["Read", "Grep", "Glob", "Bash"]);
});

Deno.test("readFrontMatter() skips an HTML comment before the front matter", () => {
  const text = "<!-- Generated: do not edit. -->\n---\nname: code-review-agent\n" +
    'description: >\n  Validates code review\n  compliance.\ntools: ["read", "shell"]\n---\n# Body';
  const fm = readFrontMatter(text);
  assertEquals(fieldText(fm, "description"), "Validates code review compliance.");
  assertEquals(fm.body, "# Body");
});

Deno.test("readFrontMatter() of a file without front matter has no fields and the whole body", () => {
  const fm = read(
    "agents/claude-plugins-official/plugins/skill-creator/skills/skill-creator/agents/grader.md",
  );
  assertEquals(fm.reading, "none");
  assertEquals(fm.fields, {});
  assert(fm.body.startsWith("# Grader Agent"));
});

Deno.test("readFrontMatter() reads CRLF line ends (a real file) and a BOM", () => {
  const crlf = read(
    "agents/claude-code-templates/cli-tool/components/agents/development-tools/unused-code-cleaner.md",
  );
  assertEquals(fieldText(crlf, "name"), "unused-code-cleaner");
  assert(!crlf.body.includes("\r"));
  const bom = readFrontMatter("\uFEFF---\r\nname: x\r\ndescription: y\r\n---\r\nbody\r\n");
  assertEquals([fieldText(bom, "name"), fieldText(bom, "description"), bom.body], [
    "x",
    "y",
    "body",
  ]);
});

Deno.test("readFrontMatter() reads tabs used as indentation", () => {
  const fm = readFrontMatter(
    "---\nname: t\ntools:\n\t- Read\n\t- Grep\nmetadata:\n\tversion: 2\n---\n",
  );
  assertEquals(fm.reading, "quoted");
  assertEquals(listField(fm.fields.tools), ["Read", "Grep"]);
  assertEquals(fm.fields.metadata, { version: 2 });
});

Deno.test("readFrontMatter() keeps unknown fields: numbers, colors, nested metadata", () => {
  const fm = readFrontMatter(
    "---\nname: n\ndescription: d\nversion: 1.2\ncolor: red\npermissionMode: plan\n" +
      "metadata:\n  author: me\n  tags: [a, b]\n---\n",
  );
  assertEquals(fm.fields.version, 1.2);
  assertEquals(fm.fields.permissionMode, "plan");
  assertEquals(fm.fields.metadata, { author: "me", tags: ["a", "b"] });
  assertEquals(fieldText(fm, "version"), "1.2");
});

Deno.test("readFrontMatter() falls back to the line reader when quoting cannot help", () => {
  const fm = readFrontMatter(
    "---\nname: broken\ndescription: starts here\n  and: goes on: with colons\n: stray\n---\nB",
  );
  assertEquals(fm.reading, "lines");
  assertEquals(fieldText(fm, "description"), "starts here and: goes on: with colons");
  assertEquals(fm.body, "B");
});

Deno.test("readFrontMatter() reads plain one-line fields without the parser exactly as YAML does", async () => {
  const { parse } = await import("yaml");
  const samples = [
    "name: x\ndescription: Plain words, even commas.",
    "name: x\nversion: 1.0\nenabled: true\nnothing: null\nweird: ~",
    "name: x\ndescription: - starts with a dash",
    "name: x\ndescription: 'quoted'\nother: \"double\"",
    "name: x\ntags: [a, b]\nmeta: {a: 1}",
    "name: x\ndescription: has # a comment",
    "name: x\nname: twice",
    "name: -1\nport: 0x1F\nat: .5",
  ];
  const real = realFiles().filter((row) => row.fixture.endsWith(".md"))
    .map((row) => Deno.readTextFileSync(realFile(row.fixture)));
  for (const text of [...samples.map((s) => `---\n${s}\n---\nbody`), ...real]) {
    const front = readFrontMatter(text);
    if (front.reading !== "yaml") continue;
    const block = /^---\n([^]*?)\n---/m.exec(
      text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").replace(/^(\s*<!--[^]*?-->)*\s*/, ""),
    )![1]!;
    assertEquals(front.fields, parse(block, { uniqueKeys: false }) ?? {}, block.slice(0, 80));
  }
});
