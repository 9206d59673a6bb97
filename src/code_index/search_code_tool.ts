// The `search_code` tool as the model sees it, and how its answer reads: the definitions whose
// text is closest in meaning to a natural-language query, one line each with its similarity.
// Offered only when an embedding model is configured or found (code_tools.ts).

import type { ToolInfo } from "../tools/tool_entry.ts";
import type { SemanticAnswer } from "./semantic_search.ts";

/** Matches returned when the model does not say. */
export const DEFAULT_SEARCH_LIMIT = 8;

/** The tool's schema. */
export const SEARCH_CODE_INFO: ToolInfo = {
  name: "search_code",
  description: "Find code by meaning: the functions, classes and types whose text best matches " +
    "a description in plain words. Use it when you do not know the names to grep for.",
  risk: "safe",
  parameters: {
    type: "object",
    properties: {
      query: {
        type: "string",
        minLength: 1,
        description: 'What the code does, e.g. "where are retries delayed after an error"',
      },
      path: { type: "string", description: "Only files under this folder or this file" },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: 30,
        description: `How many matches (default ${DEFAULT_SEARCH_LIMIT})`,
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
  source: "builtin:code_index",
  origin: "builtin",
};

/**
 * The tool's output and the terminal's one-line display.
 *
 * @param query What was asked.
 * @param answer What the search found.
 * @param model The embedding model.
 * @returns `output` for the model, `display` for the user.
 *
 * @example
 * ```ts
 * import { formatSearchAnswer } from "./search_code_tool.ts";
 * const { output } = formatSearchAnswer("retry delay", {
 *   matches: [{ path: "a.ts", line: 3, endLine: 9, signature: "function wait() {", score: 0.8123 }],
 *   searched: 10, embedded: 0,
 * }, "nomic-embed-text");
 * if (!output.includes("a.ts:3-9: function wait() {  (0.81)")) throw new Error(output);
 * ```
 */
export function formatSearchAnswer(
  query: string,
  answer: SemanticAnswer,
  model: string,
): { output: string; display: string } {
  const embedded = answer.embedded > 0 ? ` (embedded ${answer.embedded} new definitions)` : "";
  if (answer.matches.length === 0) {
    const output = answer.searched === 0
      ? "No definitions to search: the workspace has no indexed source files."
      : `No definitions match "${query}" in that scope.`;
    return { output, display: `${output}${embedded}` };
  }
  const n = answer.matches.length;
  const head =
    `${n} definition${n === 1 ? "" : "s"} closest to "${query}" (of ${answer.searched}, ` +
    `by ${model}; cosine similarity at the end):`;
  const lines = answer.matches.map((m) =>
    `${m.path}:${m.line}-${m.endLine}: ${m.signature}  (${m.score.toFixed(2)})`
  );
  return {
    output: [head, ...lines].join("\n"),
    display: `${answer.matches.length} matches of ${answer.searched} definitions${embedded}`,
  };
}
