// The permission prompt for several calls of one model turn: one numbered list, each line the
// tool and the same argument summary the one-call prompt shows, and three answers (approve
// all, deny all, one by one). The user must see every call an "approve all" approves: when a
// summary would be cut, the list is not offered and each call is asked about on its own. A
// file change is listed with its diff, or asked about on its own when its diff is long.
// Terminal I/O goes through the injected KeyIO, as in prompter.ts.

import { readAnswerKey, readDenyReason } from "./answer_key.ts";
import { argsSummary, summaryIsWhole } from "./args_summary.ts";
import type { BatchAnswer, KeyIO, PromptRequest } from "../permissions/prompt_types.ts";
import { paint, riskLabel } from "./prompt_paint.ts";
import { terminalLine } from "../platform/terminal_text.ts";
import type * as FileDiffView from "./file_diff_view.ts";

/**
 * Formats the prompt for several calls: a header, one numbered line per call
 * (`  1. write_file  {"path": "a.txt"}  risk: MEDIUM`) with the diff of a file change under it,
 * a warning naming the high-risk calls, each tool's note once, and the choices.
 *
 * @param requests The calls, in call order.
 * @param options `color`: ANSI colours; `note`: a tool's note line (as in the one-call prompt);
 *   `diffs`: each call's rendered diff, by index (file_diff_view.ts).
 * @returns The text, ending in a newline.
 *
 * @example
 * ```ts
 * import { formatBatchPrompt } from "./batch_prompt.ts";
 * const text = formatBatchPrompt([
 *   { tool: "write_file", args: { path: "a" }, risk: "medium", alwaysFile: "p" },
 *   { tool: "write_file", args: { path: "b" }, risk: "medium", alwaysFile: "p" },
 * ], { color: false });
 * if (!text.includes('  2. write_file  {"path": "b"}  risk: MEDIUM\n')) throw new Error(text);
 * ```
 */
export function formatBatchPrompt(
  requests: readonly PromptRequest[],
  options: {
    color: boolean;
    note?: (tool: string) => string | undefined;
    diffs?: readonly (string | undefined)[];
  },
): string {
  const { color } = options;
  const n = requests.length;
  const lines = [`${paint(color, "1", "Permission request")} for ${n} calls`];
  for (const [index, request] of requests.entries()) {
    const riskText = riskLabel(request.risk, color);
    lines.push(
      `  ${index + 1}. ${paint(color, "1", terminalLine(request.tool))}  ${
        argsSummary(request.args)
      }  risk: ${riskText}`,
    );
    const diff = options.diffs?.[index];
    if (diff) lines.push(diff.replace(/\n$/, "").replace(/^/gm, "     "));
  }
  const high = requests.flatMap((request, index) => request.risk === "high" ? [index + 1] : []);
  if (high.length > 0) {
    const which = high.length === 1 ? `call ${high[0]}` : `calls ${high.join(", ")}`;
    lines.push(
      paint(color, "1;31", `⚠ HIGH RISK: ${which} can change files or run programs; check them`),
    );
  }
  for (const tool of new Set(requests.map((request) => request.tool))) {
    const note = options.note?.(tool);
    if (note) lines.push(paint(color, "2", note));
  }
  lines.push(
    `[a] Approve all ${n}  [d] Deny all ${n}  [o] One by one (with Always allow and Edit)`,
  );
  return `${lines.join("\n")}\n`;
}

/**
 * Asks about several calls at once. `a` approves all, `d` denies all (then one optional reason
 * line for the model), `o` answers one by one; Ctrl-C, Ctrl-D or end of input deny all and stop
 * the turn; any other key re-asks. When a call's summary would be cut, nothing is listed and
 * the answer is `each`, after a line saying why; so it is when the calls' diffs together pass
 * the fold of one diff (FOLDED_DIFF_LINES), as the one-call prompt can show a diff whole.
 *
 * @param requests The calls (two or more), in call order.
 * @param options `io`: the terminal seam; `color`; `note`: a tool's note line.
 * @param signal Aborting answers `abort`.
 * @returns The answer.
 *
 * @example
 * ```ts
 * import { askBatch } from "./batch_prompt.ts";
 * const io = { readKey: () => Promise.resolve("a"), readLine: () => Promise.resolve(null), write: () => {} };
 * const r = { tool: "t", args: {}, risk: "medium" as const, alwaysFile: "p" };
 * if ((await askBatch([r, r], { io, color: false })).kind !== "all") throw new Error();
 * ```
 */
export async function askBatch(
  requests: readonly PromptRequest[],
  options: { io: KeyIO; color: boolean; note?: (tool: string) => string | undefined },
  signal?: AbortSignal,
): Promise<BatchAnswer> {
  const { io } = options;
  const long = requests.findIndex((request) => !summaryIsWhole(request.args));
  if (long >= 0) {
    io.write(
      `${requests.length} calls need approval; asking one by one: the arguments of call ` +
        `${long + 1} (${requests[long]!.tool}) are too long to list together\n`,
    );
    return { kind: "each" };
  }
  const diffs = await batchDiffs(requests, options.color);
  if (diffs === undefined) {
    io.write(
      `${requests.length} calls need approval; asking one by one: their changes are too long ` +
        "to list together\n",
    );
    return { kind: "each" };
  }
  io.write(formatBatchPrompt(requests, { ...options, diffs }));
  for (;;) {
    const key = await readAnswerKey(io, signal);
    if (key === null) return { kind: "abort" };
    switch (key.toLowerCase()) {
      case "a":
        io.write(`Approved all ${requests.length}\n`);
        return { kind: "all" };
      case "d": {
        io.write(`Denied all ${requests.length}\n`);
        const reason = await readDenyReason(io);
        return reason ? { kind: "none", reason } : { kind: "none" };
      }
      case "o":
        io.write("One by one\n");
        return { kind: "each" };
      default:
        io.write(
          `${
            JSON.stringify(key)
          } is not an answer: press a, d or o (Ctrl-C denies all and stops the turn)\n`,
        );
    }
  }
}

/**
 * Each file change's diff (undefined for a call without one), or undefined when a diff is
 * folded or they pass one diff's fold together.
 */
async function batchDiffs(
  requests: readonly PromptRequest[],
  color: boolean,
): Promise<(string | undefined)[] | undefined> {
  if (!requests.some((request) => request.preview)) return [];
  // The diff module (and npm:diff) loads with the first file change asked about.
  const view = await import("./file_diff_view.ts") as typeof FileDiffView;
  // One at a time, as the one-call prompts would ask (each preview runs in its tool's worker).
  const diffs = [];
  for (const request of requests) diffs.push(await view.promptDiff(request.preview, color));
  const lines = diffs.reduce((sum, diff) => sum + (diff?.text.split("\n").length ?? 1) - 1, 0);
  if (diffs.some((diff) => diff?.whole) || lines > view.FOLDED_DIFF_LINES) return undefined;
  return diffs.map((diff) => diff?.text);
}
