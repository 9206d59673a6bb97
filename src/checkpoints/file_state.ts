// What a checkpoint knows about one workspace file at one moment: its content (git's mode and
// the blob the shadow repository holds), that there was no file, or why its content is not
// known. A restore writes content back and removes a file only where "absent" was seen; every
// other state leaves the path as it is, with a reason the user is told.

/** A file's state: `"MODE BLOB"` (e.g. `"100644 3b18e5..."`) or one of the words below. */
export type FileState = string;

/** No file was there: a restore to this state removes what is there now. */
export const ABSENT = "absent";

/** Why a state is not known, by its word (a restore leaves such a path as it is). */
export const UNKNOWN_STATES: Readonly<Record<string, string>> = {
  ignored: "git ignores it, so its earlier content was not recorded",
  oversize: "it is over checkpoint_max_file_size, so its content was not recorded",
  unreadable: "this session may not read it (the read grant, --deny-read)",
  folder: "it is a folder, not a file",
  "behind-link": "a folder on its way is a link now, which could lead out of the workspace",
  "cut-short": "a call was changing it when the turn was cut short",
  "not-recorded": "it was recorded by an older harness, which could not tell a file the turn " +
    "created from one git ignored",
};

/** The state word for each reason (for building states without repeating the strings). */
export const UNKNOWN = {
  ignored: "ignored",
  oversize: "oversize",
  unreadable: "unreadable",
  folder: "folder",
  behindLink: "behind-link",
  cutShort: "cut-short",
  notRecorded: "not-recorded",
} as const;

/**
 * Whether a state holds content the shadow repository can write back.
 *
 * @example
 * ```ts
 * import { isContent } from "./file_state.ts";
 * if (!isContent("100644 3b18e512dba79e4c8300dd08aeb37f8e728b8dad")) throw new Error();
 * if (isContent("absent") || isContent("ignored")) throw new Error();
 * ```
 */
export function isContent(state: FileState | undefined): state is string {
  return state !== undefined && /^(100644|100755|120000) [0-9a-f]{40,64}$/.test(state);
}

/**
 * Whether a state is known (content or absent): what a restore can put back and what a
 * later change can be compared with.
 *
 * @example
 * ```ts
 * import { isKnown } from "./file_state.ts";
 * if (!isKnown("absent") || isKnown("oversize") || isKnown(undefined)) throw new Error();
 * ```
 */
export function isKnown(state: FileState | undefined): state is string {
  return state === ABSENT || isContent(state);
}

/**
 * Why a path with this state is left as it is, for the user.
 *
 * @example
 * ```ts
 * import { unknownReason } from "./file_state.ts";
 * if (!unknownReason("ignored").includes("git ignores it")) throw new Error();
 * ```
 */
export function unknownReason(state: FileState): string {
  return UNKNOWN_STATES[state] ?? `its state is not known (${state})`;
}

/** The blob id of a content state. */
export function blobOf(state: FileState): string | undefined {
  return isContent(state) ? state.slice(7) : undefined;
}
