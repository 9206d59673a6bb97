// The sentences of the file gate's refusals: what was refused and why, in the words the user
// knows (the flag, .git, harness's folders), and what to do next where there is something.

import type { FileAccess, HiddenEntry, IdentityRole, ProtectedEntry } from "./gate_types.ts";

/**
 * What a recorded entry is, in the words the user knows it by.
 *
 * @example
 * ```ts
 * import { roleName } from "./refusal_text.ts";
 * if (roleName("deny_read") !== "--deny-read") throw new Error();
 * ```
 */
export function roleName(role: IdentityRole): string {
  switch (role) {
    case "deny_read":
      return "--deny-read";
    case "deny_write":
      return "--deny-write";
    case "protected":
      return "protected by harness";
    case "hidden":
      return "hidden by harness";
    default: {
      const never: never = role;
      throw new Error(`unknown role ${JSON.stringify(never)}`);
    }
  }
}

/** The verb of an access in a sentence. */
export function verbOf(access: FileAccess): string {
  return access === "stat" ? "inspect" : access;
}

/**
 * Why a folder harness hides is refused: its data folder, or its config folder.
 *
 * @example
 * ```ts
 * import { hiddenSentence } from "./refusal_text.ts";
 * const line = hiddenSentence("read", "/h/.config/harness/config.jsonc", "config");
 * if (!line.includes("API key")) throw new Error(line);
 * ```
 */
export function hiddenSentence(
  access: FileAccess,
  path: string,
  kind: HiddenEntry["kind"],
): string {
  const what = kind === "config"
    ? "harness's config folder (settings with the API key, hooks, policies, the trust store; " +
      "only its skills and plugins stay readable)"
    : "harness's data folder (sessions, checkpoints, the code index, saved outputs of every " +
      "workspace)";
  return `Cannot ${verbOf(access)} "${path}": ${what} is hidden from tools, the editor and ` +
    "commands";
}

/**
 * Why plan mode refuses a write outside its plan folder: a flag would not help.
 *
 * @param head The refusal's start, e.g. `Requires write access to "/w/a.ts"`.
 * @param planFolder The plan folder.
 *
 * @example
 * ```ts
 * import { planWriteSentence } from "./refusal_text.ts";
 * const line = planWriteSentence('Requires write access to "/w/a"', "/d/plans/s1");
 * if (!line.includes("leaves plan mode") || line.includes("--allow")) throw new Error(line);
 * ```
 */
export function planWriteSentence(head: string, planFolder: string): string {
  return `${head}: plan mode writes only the plan folder "${planFolder}": write the plan ` +
    "there; files change once the user leaves plan mode";
}

/**
 * Why a subagent is refused a path the user's grants allow: its agent file narrowed them, and
 * a flag would not help.
 *
 * @param head The refusal's start, e.g. `Requires write access to "/w/a.ts"`.
 * @param access "read" or "write".
 *
 * @example
 * ```ts
 * import { subagentSentence } from "./refusal_text.ts";
 * const line = subagentSentence('Requires write access to "/w/a"', "write");
 * if (!line.includes("agent file") || line.includes("--allow")) throw new Error(line);
 * ```
 */
export function subagentSentence(head: string, access: "read" | "write"): string {
  return `${head}: this subagent may ${access} only the paths its agent file allows: do the ` +
    "task within them, or say in your answer what else it needs";
}

/**
 * Why the grants refuse a read or write, and what to do: restart with the flag, unless plan
 * mode (`planFolder`, writes) or a subagent's agent file narrowed what the user granted.
 *
 * @example
 * ```ts
 * import { notGrantedSentence } from "./refusal_text.ts";
 * const line = notGrantedSentence("read", "/etc/x", undefined);
 * if (line !== 'Requires read access to "/etc/x": restart harness with --allow-read=/etc/x') throw new Error(line);
 * ```
 */
export function notGrantedSentence(
  access: "read" | "write",
  shown: string,
  narrowedBy: { planFolder: string } | "subagent" | undefined,
): string {
  const head = `Requires ${access} access to "${shown}"`;
  if (narrowedBy === "subagent") return subagentSentence(head, access);
  if (narrowedBy !== undefined) return planWriteSentence(head, narrowedBy.planFolder);
  return `${head}: restart harness with --allow-${access}=${shown}`;
}

/** Why a folder holding a denied, protected or hidden entry cannot be deleted or moved. */
export function heldSentence(path: string, held: string): string {
  return `Cannot delete or move "${path}": it holds "${held}", which harness protects or ` +
    "denies; a rename would take it out of reach of those rules";
}

/** Why a protected entry is refused, by its kind. */
export function protectedSentence(entry: ProtectedEntry, path: string): string {
  switch (entry.kind) {
    case "git":
      return `Cannot write "${path}": harness keeps .git read-only for tools and commands ` +
        "(hooks and config there run programs outside harness); restart harness with " +
        "--writable-git to allow it";
    case "git_program":
      return `Cannot write "${path}": git runs it (${
        entry.source ?? "named in the git config"
      }), ` +
        "so harness keeps it read-only; change it outside harness";
    case "harness":
      return `Cannot write "${path}": harness keeps its own settings, trust stores and caches ` +
        "read-only for tools";
    case "project":
      return `Cannot write "${path}": .harness holds the project's config, policies and hooks, ` +
        "which decide what harness runs; change it outside harness";
    case "plugins":
      return `Cannot write "${path}": harness loads plugins from "${entry.path}", so it keeps ` +
        "them read-only; change them outside harness";
    default: {
      const never: never = entry.kind;
      throw new Error(`unknown protected kind ${JSON.stringify(never)}`);
    }
  }
}
