// The line search tools add when the sandbox kept them out of some paths (a --deny-read entry
// inside the workspace): the model learns that the answer is not the whole workspace and why,
// without anything from those paths.

/** Paths named before the rest are counted. */
const SHOWN = 5;

/**
 * The note for skipped paths, or "" when nothing was skipped.
 *
 * @param files Workspace-relative files the sandbox refused to open.
 * @param folders Workspace-relative folders the sandbox refused to list.
 * @returns One bracketed line, or "".
 *
 * @example
 * ```ts
 * import { deniedNote } from "./denied_note.ts";
 * const note = deniedNote([".env"], ["secrets"]);
 * if (note !== "[Skipped, the sandbox denies reading them: secrets/, .env]") throw new Error(note);
 * if (deniedNote([], []) !== "") throw new Error();
 * ```
 */
export function deniedNote(files: readonly string[], folders: readonly string[]): string {
  const paths = [...folders.map((folder) => `${folder}/`), ...files];
  if (paths.length === 0) return "";
  const more = paths.length > SHOWN ? ` and ${paths.length - SHOWN} more` : "";
  return `[Skipped, the sandbox denies reading them: ${paths.slice(0, SHOWN).join(", ")}${more}]`;
}
