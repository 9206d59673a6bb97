// Policy file text: parses and validates the JSONC of a policy file into LoadedRules with
// line and column errors, and inserts "Always allow" rules without disturbing comments.
// Pure; src/permissions/policy_file.ts does the file I/O and imports this module only when
// a policy file has text, so a start without policy files never loads the JSONC parser.

import {
  applyEdits,
  findNodeAtLocation,
  modify,
  type Node,
  type ParseError,
  parseTree,
  stripComments,
} from "jsonc-parser";
import { type AgentError, err, ok, type Result } from "../errors.ts";
import { compactJson } from "./compact_json.ts";
import { jsoncErrorReason, textPosition } from "../platform/jsonc_error_reason.ts";
import { jsonDepth, MAX_JSON_DEPTH } from "../platform/json_depth.ts";
import type { LoadedRule, PolicyAction, PolicyRule } from "./policy.ts";

/** The only error policy files produce: names the file; the reason leads with the position. */
export type PolicyFileError = Extract<AgentError, { kind: "config_invalid" }>;

const ACTIONS: readonly PolicyAction[] = ["allow", "ask", "deny"];
const RULE_FIELDS = ["tool", "match", "action", "reason"];
const TOP_FIELDS = ["rules", "$schema"];

/** A UTF-8 byte order mark as decoded text; editors on Windows may start files with one. */
const BOM = "\uFEFF";

/**
 * Parses and validates one policy file's JSONC text: `{ "rules": [ rule, ... ] }`.
 *
 * @param file The file name, recorded in each rule and used in errors.
 * @param text The JSONC text, optionally starting with a byte order mark. An empty or
 * comment-only text has no rules.
 * @returns The rules (index 1-based), or a `config_invalid` error whose reason starts with the
 * line and column; a syntax error reads `line 4, column 5: expected a comma: fix the file or
 * move it away`.
 *
 * @example
 * ```ts
 * import { parsePolicyText } from "./policy_text.ts";
 * const r = parsePolicyText("p.jsonc", '{ "rules": [ { "tool": "*", "action": "ask" } ] }');
 * if (!r.ok || r.value[0]?.index !== 1) throw new Error();
 * const bad = parsePolicyText("p.jsonc", '{ "rules": [ { "tool": "*", "action": "maybe" } ] }');
 * if (bad.ok || !bad.error.reason.startsWith("line 1, column 39")) throw new Error();
 * const comma = parsePolicyText("p.jsonc", '{ "rules": [] "x": 1 }');
 * if (comma.ok || !comma.error.reason.startsWith("line 1, column 15: expected a comma")) {
 *   throw new Error();
 * }
 * ```
 */
export function parsePolicyText(
  file: string,
  textWithBom: string,
): Result<LoadedRule[], PolicyFileError> {
  const text = textWithBom.startsWith(BOM) ? textWithBom.slice(1) : textWithBom;
  const fail = (offset: number, message: string) =>
    err({
      kind: "config_invalid" as const,
      file,
      reason: `${textPosition(text, offset)}: ${message}`,
    });
  if (stripComments(text).trim() === "") return ok([]);
  // The parser recurses: a file nested thousands deep would overflow its stack.
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    return err({
      kind: "config_invalid",
      file,
      reason: `values nest more than ${MAX_JSON_DEPTH} levels deep: fix the file or move it away`,
    });
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    return err({
      kind: "config_invalid",
      file,
      reason: `${jsoncErrorReason(text, first)}: fix the file or move it away`,
    });
  }
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
      rules.push({
        ...rule,
        file,
        index: rules.length + 1,
        positions: rulePositions(text, ruleNode),
      });
    }
  }
  return ok(rules);
}

/** Where a rule's tool name and match keys are (`line 3, column 14`), for later checks. */
function rulePositions(text: string, node: Node): NonNullable<LoadedRule["positions"]> {
  const positions: NonNullable<LoadedRule["positions"]> = {
    tool: textPosition(text, node.offset),
    match: {},
  };
  for (const property of node.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (keyNode?.value === "tool" && valueNode) {
      positions.tool = textPosition(text, valueNode.offset);
    }
    if (keyNode?.value !== "match" || valueNode?.type !== "object") continue;
    for (const entry of valueNode.children ?? []) {
      const key = entry.children?.[0];
      if (key) positions.match[String(key.value)] = textPosition(text, key.offset);
    }
  }
  return positions;
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

const FORMATTING = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } };

/**
 * Adds a rule at the end of a policy file's `rules`, under a `// Always allow, YYYY-MM-DD`
 * comment, keeping the existing text, comments and formatting.
 *
 * @param text The file's JSONC text (already checked by {@linkcode parsePolicyText}).
 * @param rule The rule to add.
 * @returns The new text.
 *
 * @example
 * ```ts
 * import { insertRuleText, parsePolicyText } from "./policy_text.ts";
 * const text = insertRuleText('{ "rules": [] }', { tool: "ls", action: "allow" });
 * const r = parsePolicyText("p.jsonc", text);
 * if (!r.ok || r.value[0]?.tool !== "ls") throw new Error(text);
 * ```
 */
export function insertRuleText(text: string, rule: PolicyRule): string {
  if (text.startsWith(BOM)) return BOM + insertRuleText(text.slice(1), rule);
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
