// Byte counts as people read them, for the terminal, tool results and error messages.

/**
 * Human size: B, KB, MB, GB.
 *
 * @example
 * ```ts
 * import { humanSize } from "./human_size.ts";
 * if (humanSize(1536) !== "1.5 KB") throw new Error(humanSize(1536));
 * ```
 */
export function humanSize(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}
