// After each tool call (a command may have run), the gate checks that every denied and
// protected entry still resolves to the identity it had at start (gate/file_gate.ts). One that
// moved stays refused under any name; the call's result says so, for the model and the user,
// and auto-approval stops for the session (FileGate.autoApprovalStop).

import type { FileGate } from "../../gate/file_gate.ts";
import type { MovedEntry } from "../../gate/gate_types.ts";
import { roleName } from "../../gate/refusal_text.ts";
import type { ToolRun } from "../../tools/tool_entry.ts";

/**
 * The sentence for entries found moved.
 *
 * @example
 * ```ts
 * import { movedSentence } from "./moved_entries.ts";
 * const line = movedSentence([{ path: "/w/secrets", role: "deny_read", now: "missing" }]);
 * if (!line.includes('"/w/secrets" (--deny-read) was moved or removed')) throw new Error(line);
 * ```
 */
export function movedSentence(moved: readonly MovedEntry[]): string {
  const names = moved.map((entry) =>
    `"${entry.path}" (${roleName(entry.role)}) was ${
      entry.now === "missing" ? "moved or removed" : "replaced"
    }`
  ).join("; ");
  return `[harness: ${names} since harness started. harness still refuses it under any name ` +
    "(it knows it by device and inode), and auto-approval is off for the rest of this session: " +
    "every call that is not read-only asks]";
}

/**
 * Checks the gate's entries after a call and adds the sentence to its result when any moved.
 *
 * @param run The call's result.
 * @param gate The run's gate; nothing is checked without one.
 * @returns The result, with the sentence appended to its data or error message.
 */
export function noteMovedEntries(run: ToolRun, gate: FileGate | undefined): ToolRun {
  const moved = gate?.verify() ?? [];
  if (moved.length === 0) return run;
  const note = movedSentence(moved);
  const result = run.result.success
    ? { ...run.result, data: `${run.result.data ?? ""}\n${note}`.trimStart() }
    : { ...run.result, error_message: `${run.result.error_message ?? ""}\n${note}`.trimStart() };
  // The terminal's tool line shows it too (its detail is one line).
  return { ...run, result, display: run.display ? `${run.display} · ${note}` : note };
}
