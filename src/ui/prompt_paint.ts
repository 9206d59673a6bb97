// The colours of the approval prompts (prompter.ts for one call, batch_prompt.ts for several):
// ANSI codes around a text when colour is on, and a call's risk as both prompts show it.

import type { RiskLevel } from "../tools/define_tool.ts";

/**
 * Wraps `text` in the ANSI code `code` when `color` is on.
 *
 * @example
 * ```ts
 * import { paint } from "./prompt_paint.ts";
 * if (paint(true, "1", "x") !== "\x1b[1mx\x1b[0m" || paint(false, "1", "x") !== "x") throw new Error();
 * ```
 */
export function paint(color: boolean, code: string, text: string): string {
  return color ? `\x1b[${code}m${text}\x1b[0m` : text;
}

/**
 * A call's risk in capitals: bold red when high, yellow when medium.
 *
 * @example
 * ```ts
 * import { riskLabel } from "./prompt_paint.ts";
 * if (riskLabel("high", false) !== "HIGH" || !riskLabel("high", true).includes("1;31")) throw new Error();
 * ```
 */
export function riskLabel(risk: RiskLevel, color: boolean): string {
  const text = risk.toUpperCase();
  if (risk === "high") return paint(color, "1;31", text);
  return risk === "medium" ? paint(color, "33", text) : text;
}
