// Policy files on disk: finds them (user, project, --policies), parses and validates their
// JSONC into LoadedRules with file/line/column errors, and appends "Always allow" rules to
// the user's file without disturbing its comments. The only permissions module with file I/O
// besides the trust store.

import { dirname, join } from "node:path";
import {
  applyEdits,
  findNodeAtLocation,
  modify,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
  stripComments,
} from "jsonc-parser";
import { type AgentError, err, ok, type Result } from "../errors.ts";
import { configDir } from "../config.ts";
import { compactJson } from "./compact_json.ts";
import type { LoadedRule, PolicyAction, PolicyRule } from "./policy.ts";

/** One policy file to load; a missing optional file is skipped, a missing required one fails. */
export interface PolicyFileRef {
  path: string;
  required: boolean;
}

/** The only error policy files produce: names the file; the reason leads with the position. */
export type PolicyFileError = Extract<AgentError, { kind: "config_invalid" }>;

const ACTIONS: readonly PolicyAction[] = ["allow", "ask", "deny"];
const RULE_FIELDS = ["tool", "match", "action", "reason"];
const TOP_FIELDS = ["rules", "$schema"];

/**
 * The user's policy file: `$XDG_CONFIG_HOME/harness/policies.jsonc`, else
 * `~/.config/harness/policies.jsonc`.
 *
 * @example
 * ```ts
 * import { userPolicyFile } from "./policy_file.ts";
 * const f = userPolicyFile((k) => k === "XDG_CONFIG_HOME" ? "/x" : undefined);
 * if (f !== "/x/harness/policies.jsonc") throw new Error(f);
 * ```
 */
export function userPolicyFile(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string {
  return join(configDir(env), "policies.jsonc");
}

/**
 * The policy files in load order: user, project (`<cwd>/.harness/policies.jsonc`), then the
 * `--policies FILE` if given (required). Later files' rules come later, so they win.
 *
 * @example
 * ```ts
 * import { policyFileRefs } from "./policy_file.ts";
 * const refs = policyFileRefs({ cwd: "/p", extra: "x.jsonc", env: () => undefined });
 * if (refs.length !== 3 || refs[2]?.required !== true) throw new Error();
 * ```
 */
export function policyFileRefs(
  options: { cwd: string; extra?: string; env?: (name: string) => string | undefined },
): PolicyFileRef[] {
  const refs: PolicyFileRef[] = [
    { path: userPolicyFile(options.env), required: false },
    { path: join(options.cwd, ".harness", "policies.jsonc"), required: false },
  ];
  if (options.extra !== undefined) refs.push({ path: options.extra, required: true });
  return refs;
}

/**
 * Loads policy files in order and concatenates their rules. Any error stops loading: a
 * malformed file never falls back to "allow".
 *
 * @param paths Files in load order.
 * @returns The rules, or a `config_invalid` error whose reason starts with
 * `line L, column C:` when the problem has a position.
 *
 * @example
 * ```ts
 * import { loadPolicyFiles } from "./policy_file.ts";
 * const r = await loadPolicyFiles([{ path: "/no/such/file.jsonc", required: false }]);
 * if (!r.ok || r.value.length !== 0) throw new Error();
 * ```
 */
export async function loadPolicyFiles(
  paths: readonly PolicyFileRef[],
): Promise<Result<LoadedRule[], PolicyFileError>> {
  const rules: LoadedRule[] = [];
  for (const ref of paths) {
    let text: string;
    try {
      text = await Deno.readTextFile(ref.path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound && !ref.required) continue;
      const reason = error instanceof Deno.errors.NotFound
        ? "file not found: check the path given to --policies"
        : `cannot read it: ${(error as Error).message}`;
      return err({ kind: "config_invalid", file: ref.path, reason });
    }
    const parsed = parsePolicyText(ref.path, text);
    if (!parsed.ok) return parsed;
    rules.push(...parsed.value);
  }
  return ok(rules);
}

/** Line and column (1-based) of an offset, as `line L, column C`. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/**
 * Parses and validates one policy file's JSONC text: `{ "rules": [ rule, ... ] }`.
 *
 * @param file The file name, recorded in each rule and used in errors.
 * @param text The JSONC text. An empty or comment-only text has no rules.
 * @returns The rules (index 1-based), or a `config_invalid` error with line and column.
 *
 * @example
 * ```ts
 * import { parsePolicyText } from "./policy_file.ts";
 * const r = parsePolicyText("p.jsonc", '{ "rules": [ { "tool": "*", "action": "ask" } ] }');
 * if (!r.ok || r.value[0]?.index !== 1) throw new Error();
 * const bad = parsePolicyText("p.jsonc", '{ "rules": [ { "tool": "*", "action": "maybe" } ] }');
 * if (bad.ok || !bad.error.reason.startsWith("line 1, column 39")) throw new Error();
 * ```
 */
export function parsePolicyText(file: string, text: string): Result<LoadedRule[], PolicyFileError> {
  const fail = (offset: number, message: string) =>
    err({ kind: "config_invalid" as const, file, reason: `${position(text, offset)}: ${message}` });
  if (stripComments(text).trim() === "") return ok([]);
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) return fail(first.offset, printParseErrorCode(first.error));
  if (root === undefined) return ok([]);
  if (root.type !== "object") {
    return fail(root.offset, 'expected an object like { "rules": [ ... ] }');
  }
  const rules: LoadedRule[] = [];
  for (const property of root.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (!keyNode || !valueNode) continue;
    const key = String(keyNode.value);
    if (!TOP_FIELDS.includes(key)) {
      return fail(keyNode.offset, `unknown field "${key}": a policy file holds only "rules"`);
    }
    if (key !== "rules") continue;
    if (valueNode.type !== "array") {
      return fail(valueNode.offset, '"rules" must be a list of rules');
    }
    for (const ruleNode of valueNode.children ?? []) {
      const rule = validateRule(ruleNode);
      if (rule instanceof Problem) return fail(rule.offset, rule.message);
      rules.push({ ...rule, file, index: rules.length + 1 });
    }
  }
  return ok(rules);
}

/** A validation problem at an offset in the file's text. */
class Problem {
  constructor(readonly offset: number, readonly message: string) {}
}

function validateRule(node: Node): PolicyRule | Problem {
  if (node.type !== "object") {
    return new Problem(
      node.offset,
      'a rule must be an object like { "tool": "read_file", "action": "allow" }',
    );
  }
  const fields = new Map<string, Node>();
  for (const property of node.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (!keyNode || !valueNode) continue;
    const key = String(keyNode.value);
    if (!RULE_FIELDS.includes(key)) {
      return new Problem(
        keyNode.offset,
        `unknown rule field "${key}": use ${RULE_FIELDS.map((f) => `"${f}"`).join(", ")}`,
      );
    }
    fields.set(key, valueNode);
  }
  const tool = fields.get("tool");
  if (!tool) return new Problem(node.offset, 'rule has no "tool": add e.g. "tool": "*"');
  if (tool.type !== "string" || tool.value === "") {
    return new Problem(tool.offset, '"tool" must be a tool name or glob, e.g. "*_file"');
  }
  const action = fields.get("action");
  if (!action) {
    return new Problem(node.offset, 'rule has no "action": use "allow", "ask" or "deny"');
  }
  if (!ACTIONS.includes(action.value as PolicyAction)) {
    return new Problem(
      action.offset,
      `unknown action ${JSON.stringify(action.value)}: use "allow", "ask" or "deny"`,
    );
  }
  const rule: PolicyRule = { tool: tool.value as string, action: action.value as PolicyAction };
  const reason = fields.get("reason");
  if (reason) {
    if (reason.type !== "string") return new Problem(reason.offset, '"reason" must be text');
    rule.reason = reason.value as string;
  }
  const match = fields.get("match");
  if (match) {
    const parsed = validateMatch(match);
    if (parsed instanceof Problem) return parsed;
    rule.match = parsed;
  }
  return rule;
}

function validateMatch(node: Node): Record<string, string | string[]> | Problem {
  const expected =
    '"match" must map argument names to globs, e.g. { "path": "src/**" } or { "command": ["git *"] }';
  if (node.type !== "object") return new Problem(node.offset, expected);
  const out: Record<string, string | string[]> = {};
  for (const property of node.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (!keyNode || !valueNode) continue;
    const key = String(keyNode.value);
    if (valueNode.type === "string") {
      out[key] = valueNode.value as string;
    } else if (
      valueNode.type === "array" && (valueNode.children ?? []).length > 0 &&
      (valueNode.children ?? []).every((c) => c.type === "string")
    ) {
      out[key] = (valueNode.children ?? []).map((c) => c.value as string);
    } else {
      return new Problem(
        valueNode.offset,
        `"match.${key}" must be a glob or a non-empty list of globs`,
      );
    }
  }
  return out;
}

const NEW_FILE_HEADER =
  `// harness permission rules (user file). Rules apply in order; the last matching rule wins.
// "Always allow" answers at the permission prompt are appended here.
// Every field is documented in policies.example.jsonc in the harness repository.
{
  "rules": []
}
`;

/**
 * Appends a rule to a policy file, keeping existing comments and formatting; creates the
 * file (and its folder) with a header comment when missing. The rule is written on one line
 * under a `// Always allow, YYYY-MM-DD` comment. The file is replaced atomically.
 *
 * @param file The policy file (normally the user's).
 * @param rule The rule to append.
 * @returns The rule as it will load (with its index), or `config_invalid` when the existing
 * file cannot be parsed (it is then left untouched).
 *
 * @example
 * ```ts
 * import { appendRule, loadPolicyFiles } from "./policy_file.ts";
 * const dir = await Deno.makeTempDir();
 * const file = `${dir}/policies.jsonc`;
 * await appendRule(file, { tool: "read_file", action: "allow" });
 * const r = await loadPolicyFiles([{ path: file, required: true }]);
 * if (!r.ok || r.value[0]?.tool !== "read_file") throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function appendRule(
  file: string,
  rule: PolicyRule,
): Promise<Result<LoadedRule, PolicyFileError>> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      return err({ kind: "config_invalid", file, reason: `cannot read it: ${String(error)}` });
    }
    text = NEW_FILE_HEADER;
  }
  if (text.trim() === "") text = NEW_FILE_HEADER;
  const existing = parsePolicyText(file, text);
  if (!existing.ok) return existing;
  const updated = insertRuleText(text, rule);
  try {
    await Deno.mkdir(dirname(file), { recursive: true });
    const temp = `${file}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    await Deno.writeTextFile(temp, updated);
    await Deno.rename(temp, file);
  } catch (error) {
    return err({ kind: "config_invalid", file, reason: `cannot write it: ${String(error)}` });
  }
  return ok({ ...rule, file, index: existing.value.length + 1 });
}

const FORMATTING = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } };

function insertRuleText(text: string, rule: PolicyRule): string {
  const date = new Date().toISOString().slice(0, 10);
  const root = parseTree(text, [], { allowTrailingComma: true });
  const rulesNode = root ? findNodeAtLocation(root, ["rules"]) : undefined;
  const last = rulesNode?.children?.at(-1);
  if (rulesNode && last) {
    // Insert after the last rule's line so its formatting and trailing comment stay put.
    const lastEnd = last.offset + last.length;
    const lineEnd = text.indexOf("\n", lastEnd);
    const rest = text.slice(lastEnd, lineEnd < 0 ? text.length : lineEnd);
    const lineStart = text.lastIndexOf("\n", last.offset) + 1;
    const indent = /^\s*/.exec(text.slice(lineStart, last.offset))?.[0] ?? "  ";
    if (lineEnd >= 0 && /^\s*,?\s*(\/\/.*)?$/.test(rest)) {
      const hadComma = /^\s*,/.test(rest);
      const addition = `\n${indent}// Always allow, ${date}\n${indent}${compactJson(rule)}${
        hadComma ? "," : ""
      }`;
      return text.slice(0, lastEnd) + (hadComma ? "" : ",") + text.slice(lastEnd, lineEnd) +
        addition + text.slice(lineEnd);
    }
  }
  if (rulesNode?.type === "array" && !last && text[rulesNode.offset] === "[") {
    // An empty list: write the rule between the brackets in the same one-line style.
    const lineStart = text.lastIndexOf("\n", rulesNode.offset) + 1;
    const outer = /^\s*/.exec(text.slice(lineStart, rulesNode.offset))?.[0] ?? "";
    const indent = `${outer}  `;
    return `${text.slice(0, rulesNode.offset)}[\n${indent}// Always allow, ${date}\n${indent}${
      compactJson(rule)
    }\n${outer}]${text.slice(rulesNode.offset + rulesNode.length)}`;
  }
  const path = rulesNode ? ["rules", -1] : ["rules"];
  const value = rulesNode ? rule : [rule];
  return applyEdits(text, modify(text, path, value, { ...FORMATTING, isArrayInsertion: true }));
}
