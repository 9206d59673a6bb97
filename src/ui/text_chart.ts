// Small terminal charts for trends that read better as a picture than a table (`harness
// stats`): horizontal bars, one per labelled value, and a one-line sparkline. Plain Unicode
// block characters, no colour needed.

const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
const SPARKS = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

/**
 * One bar per row, scaled so the largest value fills `width` cells (eighths of a cell
 * resolve small differences); each row ends with its value.
 *
 * @param rows Labels and values (values below zero count as zero).
 * @param options The widest bar in cells (default 40) and how a value is written.
 * @returns The lines.
 *
 * @example
 * ```ts
 * import { barChart } from "./text_chart.ts";
 * const lines = barChart([{ label: "mon", value: 4 }, { label: "tue", value: 2 }], { width: 4 });
 * if (lines[0] !== "mon ████ 4" || lines[1] !== "tue ██ 2") throw new Error(lines.join("\n"));
 * ```
 */
export function barChart(
  rows: readonly { label: string; value: number }[],
  options: { width?: number; format?: (value: number) => string } = {},
): string[] {
  const width = options.width ?? 40;
  const format = options.format ?? String;
  const max = Math.max(0, ...rows.map((row) => row.value));
  const labelWidth = Math.max(0, ...rows.map((row) => row.label.length));
  return rows.map((row) => {
    const eighths = max === 0 ? 0 : Math.round((Math.max(0, row.value) / max) * width * 8);
    const bar = "█".repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
    // A value above zero always shows at least a sliver.
    const shown = bar === "" && row.value > 0 ? "▏" : bar;
    return `${row.label.padEnd(labelWidth)} ${shown}${shown ? " " : ""}${format(row.value)}`;
  });
}

/**
 * A one-line sparkline: each value as one of eight block heights between the smallest and
 * the largest.
 *
 * @param values The series, oldest first.
 * @returns One character per value ("" for none).
 *
 * @example
 * ```ts
 * import { sparkline } from "./text_chart.ts";
 * if (sparkline([0, 7, 14]) !== "▁▅█" || sparkline([3, 3]) !== "▄▄") throw new Error();
 * ```
 */
export function sparkline(values: readonly number[]): string {
  if (values.length === 0) return "";
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (max === min) return SPARKS[3]!.repeat(values.length);
  return values.map((v) => SPARKS[Math.round(((v - min) / (max - min)) * 7)]!).join("");
}
