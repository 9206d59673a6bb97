// Turns a sandbox denial into advice: which flag would allow the operation, or why the grants
// already in force do not. workers/tool_worker.ts calls describeNotCapable when a tool hits
// `Deno.errors.NotCapable`, so the model and the user see the fix instead of Deno's text.

import type { Grants } from "./grants.ts";
import type { PermissionName } from "./permission_name.ts";
import { grantCovers } from "./permission_value.ts";
import { planWriteSentence, subagentSentence } from "../../gate/refusal_text.ts";

/**
 * The flag that would allow an operation, e.g. `--allow-read=/etc/passwd`.
 *
 * @example
 * ```ts
 * import { flagFor } from "./describe_not_capable.ts";
 * if (flagFor("read", "/etc/passwd") !== "--allow-read=/etc/passwd") throw new Error();
 * if (flagFor("net") !== "--allow-net") throw new Error();
 * ```
 */
export function flagFor(permission: PermissionName, target?: string): string {
  return target === undefined || target === ""
    ? `--allow-${permission}`
    : `--allow-${permission}=${target}`;
}

/**
 * Turns Deno's permission error text into advice naming the flag that would allow it, e.g.
 * `Requires read access to "/etc/hosts": restart harness with --allow-read=/etc/hosts`.
 * When the user's grants already allow it, the tool's own declaration is what is missing; in
 * plan mode (`planFolder`), a write outside the plan folder is plan mode's doing, and for a
 * subagent (`narrowedFrom`, the user's grants) a path the user granted is its agent file's.
 *
 * @example
 * ```ts
 * import { describeNotCapable } from "./describe_not_capable.ts";
 * import { emptyGrants } from "./grants.ts";
 * const text = describeNotCapable(
 *   'Requires read access to "/etc/hosts", run again with the --allow-read flag',
 *   { grants: emptyGrants(), tool: "cat" },
 * );
 * if (text !== 'Requires read access to "/etc/hosts": restart harness with --allow-read=/etc/hosts') throw new Error(text);
 * ```
 */
export function describeNotCapable(
  message: string,
  options: {
    grants: Grants;
    tool: string;
    /** Plan mode's plan folder: a refused write is plan mode's doing. */
    planFolder?: string;
    /** The user's grants, when `grants` are a subagent's narrower ones. */
    narrowedFrom?: Grants;
  },
): string {
  const match = /^Requires (read|write|net|run|env|sys|ffi) access(?: to "((?:[^"\\]|\\.)*)")?/
    .exec(message);
  if (!match) return message;
  const kind = match[1] as PermissionName;
  const target = match[2];
  const head = target === undefined
    ? `Requires ${kind} access`
    : `Requires ${kind} access to "${target}"`;
  const denied = grantCovers(kind, options.grants.deny[kind], target);
  if (denied) return `${head}: it is denied by --deny-${kind}`;
  const deny = options.grants.deny[kind];
  if (
    kind === "read" && target !== undefined && deny !== true &&
    deny.some((entry) => grantCovers("read", [target], entry))
  ) {
    // A plugin's read list leaves the denied path out, so the folder holding it is split.
    return `${head}: it holds a path --deny-read denies, so a plugin may read what is in it ` +
      "by name but not the folder itself";
  }
  if (kind === "run") {
    // Tool workers never hold Deno's run permission (Deno.Command, Deno.kill, child_process).
    return `${head}: tools start programs only through ctx.spawn, which runs them in the ` +
      "command sandbox (child.kill() signals them)";
  }
  if (grantCovers(kind, options.grants.allow[kind], target)) {
    return `${head}: tool "${options.tool}" does not declare it in its permissions`;
  }
  if (kind === "write" && options.planFolder !== undefined) {
    // Plan mode took the write grant away; a flag would not give it back.
    return planWriteSentence(head, options.planFolder);
  }
  const user = options.narrowedFrom;
  if (
    (kind === "read" || kind === "write") && user && grantCovers(kind, user.allow[kind], target)
  ) {
    // The agent's file narrowed what the user granted; a flag would not widen it.
    return subagentSentence(head, kind);
  }
  return `${head}: restart harness with ${flagFor(kind, target)}`;
}
