// Whether something is at a path, the path itself not followed: a dangling link exists, since
// the rules that protect or hide a name must hold whatever it points at.

/**
 * Whether an entry (file, folder, link, anything) is at `path`.
 *
 * @example
 * ```ts
 * import { entryExists } from "./entry_exists.ts";
 * if (!entryExists(".") || entryExists("/no/such/path")) throw new Error();
 * ```
 */
export function entryExists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
