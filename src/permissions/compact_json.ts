// One-line JSON for people: `{"path": "README.md", "n": 2}`, the layout of the permission
// prompt and of rules that "Always allow" appends to a policy file. Pure.

/**
 * Formats a value as one-line JSON with a space after `:` and `,`.
 *
 * @param value Any JSON-compatible value (undefined becomes `null`).
 * @param maxLength Truncate to this many characters, ending in `…` (no limit by default).
 * @returns The formatted text.
 *
 * @example
 * ```ts
 * import { compactJson } from "./compact_json.ts";
 * if (compactJson({ path: "README.md", n: [1, 2] }) !== '{"path": "README.md", "n": [1, 2]}') {
 *   throw new Error();
 * }
 * if (compactJson("abcdef", 4) !== '"ab…') throw new Error(compactJson("abcdef", 4));
 * ```
 */
export function compactJson(value: unknown, maxLength = Infinity): string {
  // The prompts print it: C1, bidi and invisible characters are escaped, as JSON allows.
  const text = jsonTerminalSafe(format(value));
  return text.length > maxLength ? `${text.slice(0, Math.max(0, maxLength - 1))}…` : text;
}

function format(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(format).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const parts = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${format(v)}`);
    return `{${parts.join(", ")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
import { jsonTerminalSafe } from "../platform/terminal_text.ts";
