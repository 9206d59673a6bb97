// Keeps the README and the reference pages in docs/ true to the code: the README stays short
// enough to read through, relative links (and their #anchors) lead somewhere, docs/config.md's
// table has every config key settings.ts accepts, and docs/cli.md every flag the parser knows.
// Each checker is a pure function, also run on a broken page to show it can fail.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FLAGS } from "../../src/cli/args.ts";
import {
  DEFAULT_SETTINGS,
  parseConfigText,
  PROJECT_CONFIG_SAFE_KEYS,
} from "../../src/config/settings.ts";
import { PERMISSION_NAMES } from "../../src/sandbox/grants/permission_name.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const README_MAX_LINES = 300;

/** README.md and every docs/*.md, by path relative to the repository root. */
async function markdownFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  files.set("README.md", await Deno.readTextFile(join(ROOT, "README.md")));
  for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      files.set(`docs/${entry.name}`, await Deno.readTextFile(join(ROOT, "docs", entry.name)));
    }
  }
  return files;
}

/** The text outside fenced code blocks, with inline code spans blanked. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.replace(/`/g, "").trim().toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The anchors of a page's headings, with GitHub's -1, -2 suffixes for repeats. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const withoutCode = markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "");
  for (const match of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(match[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/**
 * The relative links of `files` (paths from the root to Markdown text) that lead nowhere: a
 * missing file, or a #anchor no heading of the target page makes. `exists` answers for files
 * that are not among `files`.
 */
function brokenLinks(
  files: ReadonlyMap<string, string>,
  exists: (path: string) => boolean,
): string[] {
  const broken: string[] = [];
  for (const [file, text] of files) {
    for (const match of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [pathPart = "", anchor] = target.split("#", 2);
      const path = pathPart === "" ? file : relative(".", join(dirname(file), pathPart));
      const page = files.get(path);
      if (page === undefined && !exists(path)) {
        broken.push(`${file}: ${target} (no file ${path})`);
      } else if (anchor !== undefined && page !== undefined && !anchors(page).has(anchor)) {
        broken.push(`${file}: ${target} (no heading #${anchor} in ${path})`);
      }
    }
  }
  return broken;
}

/** One row of config.md's key table: the cells after the key, by column. */
interface KeyRow {
  type: string;
  defaultValue: string;
  what: string;
  project: string;
}

/** The rows of the first table whose first column is `key`, by key. */
function configTable(markdown: string): Map<string, KeyRow> {
  const rows = new Map<string, KeyRow>();
  const lines = markdown.split("\n");
  const header = lines.findIndex((line) => /^\| key\s+\|/.test(line));
  if (header === -1) return rows;
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
    const key = cells[0]?.match(/^`([a-z_]+)`$/)?.[1];
    if (key === undefined || cells.length < 5) continue;
    rows.set(key, {
      type: cells[1]!,
      defaultValue: cells[2]!,
      what: cells[3]!,
      project: cells[4]!,
    });
  }
  return rows;
}

/**
 * What docs/config.md gets wrong against the settings: a key missing from the table or one the
 * settings do not know, an "untrusted project file" cell that disagrees with
 * PROJECT_CONFIG_SAFE_KEYS, or a default that is not the one in DEFAULT_SETTINGS.
 */
function configProblems(
  markdown: string,
  settings: { keys: readonly string[]; safe: readonly string[]; defaults: object },
): string[] {
  const rows = configTable(markdown);
  const problems: string[] = [];
  for (const key of settings.keys) {
    const row = rows.get(key);
    if (row === undefined) {
      problems.push(`"${key}" is missing from the table`);
      continue;
    }
    const safe = settings.safe.includes(key);
    if (row.project.startsWith("yes") !== safe) {
      problems.push(`"${key}": the project column says "${row.project}", expected ${safe}`);
    }
    const camel = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    const value = (settings.defaults as Record<string, unknown>)[camel];
    // base_url's default is a fallback: without one, harness looks for a server.
    if (key !== "base_url" && ["number", "string", "boolean"].includes(typeof value)) {
      const written = typeof value === "string" ? JSON.stringify(value) : String(value);
      if (!row.defaultValue.includes(`\`${written}\``)) {
        problems.push(`"${key}": the default column says ${row.defaultValue}, not \`${written}\``);
      }
    }
  }
  for (const key of rows.keys()) {
    if (!settings.keys.includes(key)) problems.push(`"${key}" is not a config key`);
  }
  return problems;
}

/** The long flags of `flags` that no code span of `markdown` names (`-p, --print PROMPT`). */
function missingFlags(markdown: string, flags: readonly string[]): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
  return flags.filter((flag) => {
    const named = new RegExp(`(?:^|[\\s,])${flag}(?![a-z-])`);
    return !spans.some((span) => named.test(span));
  });
}

/** Every config key settings.ts accepts, from its own answer to an unknown key. */
async function configKeys(): Promise<string[]> {
  const r = await parseConfigText("probe.jsonc", '{ "no_such_key": 1 }');
  const reason = r.ok ? "" : "reason" in r.error ? String(r.error.reason) : "";
  const list = reason.match(/known settings are (.+)$/)?.[1];
  assert(list !== undefined, `settings.ts no longer lists its keys: ${reason}`);
  return list.split(", ");
}

Deno.test("README.md stays at most 300 lines", async () => {
  const lines = (await Deno.readTextFile(join(ROOT, "README.md"))).trimEnd().split("\n").length;
  assert(lines <= README_MAX_LINES, `README.md has ${lines} lines: move detail into docs/`);
});

Deno.test("brokenLinks() finds no broken relative link in README.md and docs/*.md", async () => {
  const files = await markdownFiles();
  assert(files.size >= 10, `expected README.md and the docs pages, found ${[...files.keys()]}`);
  const exists = (path: string) => {
    try {
      Deno.statSync(join(ROOT, path));
      return true;
    } catch {
      return false;
    }
  };
  assertEquals(brokenLinks(files, exists), []);
});

Deno.test("brokenLinks() reports a missing file and a missing heading", () => {
  const files = new Map([
    ["README.md", "See [models](docs/models.md#which-server) and [gone](docs/gone.md).\n"],
    ["docs/models.md", "# Models\n\n## Which one\n\n[back](../README.md) [code](`x`)\n"],
  ]);
  assertEquals(brokenLinks(files, () => false), [
    "README.md: docs/models.md#which-server (no heading #which-server in docs/models.md)",
    "README.md: docs/gone.md (no file docs/gone.md)",
  ]);
});

Deno.test("configProblems() finds every config key of settings.ts in docs/config.md", async () => {
  const keys = await configKeys();
  assert(keys.length >= 20 && keys.includes("base_url"), `too few keys: ${keys}`);
  const markdown = await Deno.readTextFile(join(ROOT, "docs", "config.md"));
  assertEquals(
    configProblems(markdown, {
      keys,
      safe: PROJECT_CONFIG_SAFE_KEYS,
      defaults: DEFAULT_SETTINGS,
    }),
    [],
  );
});

Deno.test("configProblems() reports a missing key, a wrong trust cell and a stale default", () => {
  const markdown = [
    "| key | type | default | what it does | untrusted project file |",
    "| --- | ---- | ------- | ------------ | ---------------------- |",
    "| `model` | string | none | the model | no |",
    "| `max_iterations` | integer | `12` | turns | yes |",
    "| `old_key` | string | none | gone | no |",
  ].join("\n");
  const problems = configProblems(markdown, {
    keys: ["model", "max_iterations", "api_key"],
    safe: ["model", "max_iterations"],
    defaults: { maxIterations: 10 },
  });
  assertEquals(problems, [
    '"model": the project column says "no", expected true',
    '"max_iterations": the default column says `12`, not `10`',
    '"api_key" is missing from the table',
    '"old_key" is not a config key',
  ]);
});

Deno.test("missingFlags() finds every long flag of the CLI parser in docs/cli.md", async () => {
  const markdown = await Deno.readTextFile(join(ROOT, "docs", "cli.md"));
  const flags = [
    ...Object.keys(FLAGS).map((name) => `--${name}`),
    ...PERMISSION_NAMES.flatMap((name) => [`--allow-${name}`]),
    "--allow-all",
    "--deny-",
  ];
  assert(flags.length > 30, `too few flags: ${flags}`);
  assertEquals(missingFlags(markdown, flags), []);
});

Deno.test("missingFlags() tells a flag from a longer one that starts with it", () => {
  const markdown = "| `--text-tool-calls auto` | ... |\n| `-m, --model-file PATH` |\n";
  assertEquals(missingFlags(markdown, ["--text-tool-calls", "--model", "--model-file"]), [
    "--model",
  ]);
});
