// Where a path really leads (links resolved), or undefined when it does not exist or cannot
// be read: the sandbox rules hide, protect and split folders where links lead, and a missing
// path is simply left alone.

/**
 * The real path of `path`, or undefined.
 *
 * @example
 * ```ts
 * import { realPathIfExists } from "./real_path_if_exists.ts";
 * if (realPathIfExists("/no/such/path") !== undefined) throw new Error();
 * if (realPathIfExists(".") === undefined) throw new Error();
 * ```
 */
export function realPathIfExists(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}
