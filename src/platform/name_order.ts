// The order names are listed in (skills, agents, custom commands, the entries of their
// folders): by UTF-16 code units ignoring case, then by case. String.prototype.localeCompare
// loads ICU's collator on first use, about 8 ms, which a -p run paid whenever the user had
// two skills or agents, and its order follows the ICU data in the runtime.

/**
 * Compares two names by their lower-case code units, then by case: a sort comparator.
 *
 * @example
 * ```ts
 * import { compareNames } from "./name_order.ts";
 * const sorted = ["pdf", "Xlsx", "docx", "pdf-2", "Docx"].sort(compareNames);
 * if (sorted.join() !== "Docx,docx,pdf,pdf-2,Xlsx") throw new Error(sorted.join());
 * ```
 */
export function compareNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
