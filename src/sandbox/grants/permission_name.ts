// The vocabulary of the outer sandbox: the Deno permissions the harness understands and what
// one of them can be granted. Every other grants module builds on these types; this file
// imports nothing.

/** The Deno permissions the harness understands. */
export type PermissionName = "read" | "write" | "net" | "run" | "env" | "sys" | "ffi";

/** All permission names, in display order. */
export const PERMISSION_NAMES: readonly PermissionName[] = [
  "read",
  "write",
  "net",
  "run",
  "env",
  "sys",
  "ffi",
];

/** One permission's grant: `true` is everything, a list names what is allowed, `[]` nothing. */
export type Grant = true | readonly string[];
