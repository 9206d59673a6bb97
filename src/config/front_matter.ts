// The front matter of Markdown files users already have (agent files, SKILL.md, commands), read
// as their own agents read it: a strict YAML parse first, then the same with risky values
// quoted, then a lenient line reader, because many real files are YAML their agents accept but
// a parser does not (unquoted values with ": ", `*` or `@`, tabs). A BOM, CRLF line ends and an
// HTML comment before the front matter are fine; a file without any has none. Pure: no I/O.

import { parse } from "yaml";

/** How the front matter was read. */
export type FrontMatterReading = "yaml" | "quoted" | "lines" | "none";

/** A file split into its front matter fields and its body. */
export interface FrontMatter {
  /** Every field as read, unknown ones included (keys as written). */
  fields: Record<string, unknown>;
  /**
   * The text after `key:` of each one-line top-level field, unquoted: what an agent shows for
   * a value YAML turns into something else (`argument-hint: [file]` is a list to YAML).
   */
  raw: Record<string, string>;
  /** The Markdown after the front matter (trimmed). */
  body: string;
  reading: FrontMatterReading;
  /** Why the strict parse failed, when it did (first line of the parser's message). */
  yamlError?: string;
}

/** Text before the front matter that agents skip: blank lines and HTML comments. */
const PREAMBLE = /^(?:\s*<!--[^]*?-->)*\s*/;
const KEY_LINE = /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$/;

/**
 * Splits a Markdown file into front matter and body.
 *
 * @param text The file's text (a BOM and CRLF line ends are fine).
 * @returns The fields, each one-line field's raw text, the body and how it was read.
 *
 * @example
 * ```ts
 * import { readFrontMatter } from "./front_matter.ts";
 * const fm = readFrontMatter("---\nname: fix\ndescription: Use when: tests fail\n---\nBody");
 * if (fm.fields.description !== "Use when: tests fail" || fm.reading !== "quoted") throw new Error();
 * if (readFrontMatter("# Title\ntext").reading !== "none") throw new Error();
 * ```
 */
export function readFrontMatter(text: string): FrontMatter {
  const clean = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const start = PREAMBLE.exec(clean)?.[0].length ?? 0;
  const rest = clean.slice(start);
  const open = /^---[ \t]*\n/.exec(rest);
  const close = open ? /^(?:---|\.\.\.)[ \t]*$/m.exec(rest.slice(open[0].length)) : null;
  if (!open || !close) return { fields: {}, raw: {}, body: clean.trim(), reading: "none" };
  const block = rest.slice(open[0].length, open[0].length + close.index).replace(/\n$/, "");
  const body = rest.slice(open[0].length + close.index + close[0].length).trim();
  const raw = rawValues(block);
  const plain = plainFields(block);
  if (plain) return { fields: plain, raw, body, reading: "yaml" };
  const strict = parseMapping(block);
  if ("fields" in strict) return { fields: strict.fields, raw, body, reading: "yaml" };
  const quoted = parseMapping(quoteRiskyValues(block));
  const base = { raw, body, yamlError: strict.error };
  if ("fields" in quoted) return { ...base, fields: quoted.fields, reading: "quoted" };
  return { ...base, fields: readLines(block), reading: "lines" };
}

/** A value YAML reads as the same text: no quoting, no indicator, not a number or a keyword. */
const PLAIN_TEXT =
  /^(?![-?:,[\]{}#&*!|>'"%@`\s])(?!(?:true|false|yes|no|on|off|null|~)$)(?![-+.]?\d)[^\t]*$/i;

/**
 * The fields of a block of one-line `key: text` fields that YAML would read as the same strings,
 * without the parser (most real files; their YAML reading is identical); undefined otherwise.
 */
function plainFields(block: string): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  for (const line of block.split("\n")) {
    if (line.trim() === "") continue;
    const match = KEY_LINE.exec(line);
    const value = match?.[2];
    if (value === undefined || !PLAIN_TEXT.test(value) || /: |:$| #/.test(value)) return undefined;
    if (Object.hasOwn(fields, match![1]!)) return undefined;
    fields[match![1]!] = value;
  }
  return fields;
}

function parseMapping(block: string): { fields: Record<string, unknown> } | { error: string } {
  try {
    const value: unknown = parse(block, { prettyErrors: false, uniqueKeys: false });
    if (value === null || value === undefined) return { fields: {} };
    if (typeof value !== "object" || Array.isArray(value)) {
      return { error: "the front matter is not a list of key: value lines" };
    }
    return { fields: value as Record<string, unknown> };
  } catch (error) {
    return { error: String((error as Error).message).split("\n")[0]! };
  }
}

/** Values YAML misreads in plain style, that agents take as text. */
function risky(value: string): boolean {
  // `[file] [--strict]` is a flow list followed by text to YAML; `[file]` alone parses.
  if (/^[[{]/.test(value)) return !/^(\[[^\]]*\]|\{[^}]*\})$/.test(value);
  if (/^["'|>]/.test(value)) return false;
  return /: |:$| #|^[*&@`%!]|\t/.test(value);
}

/**
 * The block with each top-level `key: value` whose plain value YAML would misread put in
 * double quotes, and tabs used as indentation turned into spaces.
 */
function quoteRiskyValues(block: string): string {
  return block.split("\n").map((line) => {
    const indented = line.replace(/^\t+/, (tabs) => "  ".repeat(tabs.length));
    const match = KEY_LINE.exec(indented);
    const value = match?.[2];
    if (!match || value === undefined || !risky(value)) return indented;
    return `${match[1]}: ${JSON.stringify(value)}`;
  }).join("\n");
}

function unquote(value: string): string {
  const double = /^"(.*)"$/.exec(value);
  if (double) {
    try {
      return JSON.parse(`"${double[1]!.replace(/\\'/g, "'")}"`) as string;
    } catch {
      return double[1]!;
    }
  }
  const single = /^'(.*)'$/.exec(value);
  return single ? single[1]!.replace(/''/g, "'") : value;
}

/** Each one-line top-level field's text after `key:`, unquoted. */
function rawValues(block: string): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const line of block.split("\n")) {
    const match = KEY_LINE.exec(line);
    if (match?.[2] !== undefined && !/^[|>][-+]?\d*$/.test(match[2])) {
      raw[match[1]!] = unquote(match[2]);
    }
  }
  return raw;
}

/** One top-level value of the lenient reader, from its own line and the indented ones after. */
function lineValue(first: string | undefined, lines: readonly string[]): unknown {
  const scalar = first === undefined ? undefined : /^([|>])[-+]?\d*$/.exec(first)?.[1];
  const inner = lines.map((line) => line.replace(/^\t/, "  "));
  if (scalar !== undefined) {
    const indent = Math.min(...inner.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length));
    const text = inner.map((l) => l.slice(Number.isFinite(indent) ? indent : 0));
    return scalar === "|"
      ? text.join("\n").trim()
      : text.join("\n").replace(/([^\n])\n(?=[^\n])/g, "$1 ").trim();
  }
  if (first !== undefined) {
    const more = inner.map((l) => l.trim()).filter(Boolean);
    const joined = [first, ...more].join(" ");
    const flow = /^\[(.*)\]$/.exec(joined);
    if (flow) return flow[1]!.split(",").map((item) => unquote(item.trim())).filter(Boolean);
    return unquote(joined);
  }
  const items = inner.map((l) => l.trim()).filter(Boolean);
  if (items.length > 0 && items.every((item) => item.startsWith("-"))) {
    return items.map((item) => unquote(item.slice(1).trim()));
  }
  if (items.length > 0 && items.every((item) => KEY_LINE.test(item))) {
    return Object.fromEntries(items.map((item) => {
      const match = KEY_LINE.exec(item)!;
      return [match[1]!, unquote(match[2] ?? "")];
    }));
  }
  return items.join(" ");
}

/**
 * The lenient reader: a `key: value` line at the start of a line starts a field; indented lines
 * after it continue it (a block scalar, a list, a small map, or more words). Other lines are
 * skipped.
 */
function readLines(block: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const lines = block.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const match = KEY_LINE.exec(lines[i]!);
    if (!match) continue;
    const following: string[] = [];
    const continues = (line: string) =>
      /^[ \t]/.test(line) || line.trim() === "" || (match[2] === undefined && /^- /.test(line));
    while (i + 1 < lines.length && continues(lines[i + 1]!)) {
      following.push(lines[++i]!);
    }
    fields[match[1]!] = lineValue(match[2], following);
  }
  return fields;
}

/**
 * A field as one line of text: a string as written (a literal `\n` becomes a line break), a
 * number or boolean as text, a list as the text its one-line form had (`argument-hint: [file]`).
 *
 * @param front The front matter.
 * @param key The field's name, in any case (`Description` finds `description`).
 * @returns The text, or undefined when the field is missing or empty.
 *
 * @example
 * ```ts
 * import { fieldText, readFrontMatter } from "./front_matter.ts";
 * const fm = readFrontMatter("---\nargument-hint: [file]\nversion: 2\n---\n");
 * if (fieldText(fm, "argument-hint") !== "[file]" || fieldText(fm, "version") !== "2") throw new Error();
 * ```
 */
export function fieldText(front: FrontMatter, key: string): string | undefined {
  const found = Object.keys(front.fields).find((k) => k.toLowerCase() === key.toLowerCase());
  if (found === undefined) return undefined;
  const value = front.fields[found];
  let text: string | undefined;
  if (typeof value === "string") text = value;
  else if (typeof value === "number" || typeof value === "boolean") text = String(value);
  else if (value !== null && value !== undefined) text = front.raw[found];
  const clean = text?.replace(/\\n/g, "\n").trim();
  return clean ? clean : undefined;
}

/**
 * A list field as its items, however it is written: a YAML list, a comma-separated string, a
 * space-separated string. Commas and spaces inside parentheses stay in their item
 * (`Bash(git add:*, git commit:*)`).
 *
 * @param value The field's value.
 * @returns The items, or undefined when the value is not a list or text.
 *
 * @example
 * ```ts
 * import { listField } from "./front_matter.ts";
 * const tools = listField("Read, Bash(git add:*, git commit:*) mcp__github__create_issue");
 * if (tools?.join("|") !== "Read|Bash(git add:*, git commit:*)|mcp__github__create_issue") throw new Error(String(tools));
 * if (listField(["Read", "Grep"])?.length !== 2 || listField(3) !== undefined) throw new Error();
 * ```
 */
export function listField(value: unknown): string[] | undefined {
  if (Array.isArray(value)) {
    return value.flatMap((item) => typeof item === "string" ? splitItems(item) : []);
  }
  return typeof value === "string" ? splitItems(value) : undefined;
}

function splitItems(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "(") depth++;
    if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (current.trim()) items.push(current.trim());
      current = "";
    } else {
      current += char;
    }
  }
  if (current.trim()) items.push(current.trim());
  return items;
}
