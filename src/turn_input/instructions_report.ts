// What /context says about the instruction files: each file in the system prompt with its
// estimated tokens, and each one found but not read with the reason.

import { estimateTokens } from "../agent/context_budget.ts";
import type { LoadedInstructions } from "../config/project_instructions.ts";

/**
 * The instruction files' lines of /context (no colours; names may come from a repository,
 * so the front end sanitises them).
 *
 * @param loaded What the run loaded.
 * @returns The lines, or one saying there are none.
 *
 * @example
 * ```ts
 * import { formatInstructionsReport } from "./instructions_report.ts";
 * const text = formatInstructionsReport({
 *   files: [{ path: "/w/AGENTS.md", label: "AGENTS.md", scope: "project", text: "x".repeat(400), truncated: false }],
 *   skipped: [],
 * });
 * if (!text.includes("AGENTS.md") || !text.includes("100 tokens")) throw new Error(text);
 * ```
 */
export function formatInstructionsReport(loaded: LoadedInstructions): string {
  const lines: string[] = [];
  if (loaded.files.length === 0) {
    lines.push(
      "Instructions: none (harness reads AGENTS.md, else CLAUDE.md or GEMINI.md, from the " +
        "repository root down to the workspace; /init writes a starter AGENTS.md)",
    );
  } else {
    lines.push("Instructions in the system prompt (the last one wins where they differ):");
    const width = Math.max(...loaded.files.map((file) => file.label.length));
    for (const file of loaded.files) {
      const tokens = estimateTokens(file.text).toLocaleString("en-US");
      const notes = [
        ...(file.scope === "user" ? ["yours"] : []),
        ...(file.truncated ? ["cut: the file is longer than harness reads"] : []),
      ];
      lines.push(
        `  ${file.label.padEnd(width)}  ${tokens.padStart(6)} tokens${
          notes.length ? ` (${notes.join(", ")})` : ""
        }`,
      );
    }
  }
  for (const skipped of loaded.skipped) {
    lines.push(`  not read: ${skipped.path}: ${skipped.reason}`);
  }
  return lines.join("\n");
}
