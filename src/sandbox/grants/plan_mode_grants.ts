// Plan mode at the level of the grants: the model may read, search and run commands, and write
// its plan, nothing else. `planModeGrants` is a pure function from the user's grants to narrowed
// ones: the write grant becomes the plan folder alone (so every tool worker loses the rest), and
// what commands could write becomes "scratch", which the command sandbox mounts as a throwaway
// overlay (commands/command_sandbox_rules.ts), so builds and tests run and nothing persists.

import type { GateRules } from "../../gate/gate_types.ts";
import type { ToolPermissions } from "../../tools/define_tool.ts";
import type { Grants } from "./grants.ts";
import type { Grant } from "./permission_name.ts";
import { grantCovers } from "./permission_value.ts";

/** The grants of plan mode and the folders commands may write into a throwaway copy of. */
export interface PlanModeGrants {
  /** The user's grants with `allow.write` narrowed to the plan folder. */
  grants: Grants;
  /**
   * Folders that were writable before and stay readable: a command sees them writable, but
   * its writes land in a throwaway layer (or fail where no overlay can be made). Never a folder
   * the read grant does not cover: an overlay shows what is below it.
   */
  scratch: string[];
}

/** Options of {@linkcode planModeGrants}. */
export interface PlanModeOptions {
  /**
   * The one folder plan mode may write (absolute): the session's folder under the data folder's
   * `plans/`, or the workspace's `plans/`. A folder, not a file: tools write atomically, through
   * a temporary file beside the target.
   */
  planFolder: string;
  /** The workspace: a scratch folder when the write grant is everything (`-W`, `-A`). */
  workspace: string;
  /**
   * The home folder: with an unlimited write grant, also scratch, so the caches and logs that
   * builds and test runners write there (npm, deno, cargo) do not make them fail.
   */
  home?: string;
}

function copyGrants(grants: Grants): Grants {
  const copy = (record: Grants["allow"]) =>
    Object.fromEntries(
      Object.entries(record).map(([kind, grant]) => [kind, grant === true ? true : [...grant]]),
    ) as Grants["allow"];
  return { allow: copy(grants.allow), deny: copy(grants.deny) };
}

/**
 * The folders commands could write before, as plan mode turns them into scratch: outer folders
 * first, so an overlay inside another (the workspace in the home folder) is mounted after it.
 */
function scratchOf(grants: Grants, options: PlanModeOptions): string[] {
  const { allow, deny } = grants;
  if (deny.write === true || deny.read === true) return [];
  const all = [options.workspace, ...(options.home ? [options.home] : [])];
  const written: Grant = allow.write === true ? all : allow.write;
  return [...new Set(written)]
    .filter((path) => grantCovers("read", allow.read, path))
    .sort((a, b) => a.split("/").length - b.split("/").length);
}

/**
 * Narrows the user's grants for plan mode: writing is limited to the plan folder (unless a
 * `--deny-write` covers it), which may be read too, every other permission stays as it was,
 * and the folders that were
 * writable (the workspace and the home folder for an unlimited write grant) and are readable
 * become scratch.
 * Plan mode's only write is the plan folder.
 *
 * @param grants The user's grants.
 * @param options The plan folder and the workspace.
 * @returns The narrowed grants and the scratch folders.
 *
 * @example
 * ```ts
 * import { planModeGrants } from "./plan_mode_grants.ts";
 * import { parseGrantFlags } from "../../cli/grant_flags.ts";
 * const r = parseGrantFlags(["--allow-read=.", "--allow-write=.", "--allow-run"], { cwd: "/w" });
 * if (!r.ok) throw new Error();
 * const plan = planModeGrants(r.value.grants, { planFolder: "/d/plans", workspace: "/w" });
 * if (JSON.stringify(plan.grants.allow.write) !== '["/d/plans"]') throw new Error();
 * if (JSON.stringify(plan.scratch) !== '["/w"]' || plan.grants.allow.run !== true) throw new Error();
 * ```
 */
export function planModeGrants(grants: Grants, options: PlanModeOptions): PlanModeGrants {
  const narrowed = copyGrants(grants);
  const denied = grants.deny.write === true ||
    grantCovers("write", grants.deny.write, options.planFolder);
  narrowed.allow.write = denied ? [] : [options.planFolder];
  // The plan may be read back where it is written (the data folder is outside the workspace).
  const read = narrowed.allow.read;
  if (!denied && read !== true && !grantCovers("read", read, options.planFolder)) {
    narrowed.allow.read = [...read, options.planFolder];
  }
  return { grants: narrowed, scratch: scratchOf(grants, options) };
}

/**
 * The file gate's rules for plan mode (built from plan mode's grants by gateRules): the plan
 * folder, when it lies in harness's hidden data folder, becomes one of that folder's exceptions,
 * so the tools can write the plan there and nothing else of the data folder.
 *
 * @param rules The gate's rules built from plan mode's grants.
 * @param planFolder The plan folder (absolute).
 * @returns A copy of `rules` with the exception added.
 *
 * @example
 * ```ts
 * import { planGateRules } from "./plan_mode_grants.ts";
 * const rules = planGateRules({
 *   read: true, write: ["/d/plans/s1"], denyRead: [], denyWrite: [], protected: [],
 *   protectedNames: [".git"], hidden: [{ path: "/d", kind: "data", except: [] }],
 * }, "/d/plans/s1");
 * if (rules.hidden[0]?.except.join() !== "/d/plans/s1") throw new Error();
 * ```
 */
export function planGateRules(rules: GateRules, planFolder: string): GateRules {
  return {
    ...rules,
    planFolder,
    hidden: rules.hidden.map((entry) =>
      grantCovers("read", [entry.path], planFolder) && entry.path !== planFolder
        ? { ...entry, except: [...new Set([...entry.except, planFolder])] }
        : entry
    ),
  };
}

/**
 * What a tool declares, with plan mode's plan folder beside the workspace: a tool that
 * declares the workspace (`"."`) for reading or writing may reach the plan folder too, so the
 * file tools can write the plan there when it is outside the workspace (the data folder). Plan
 * mode's grants then leave the plan folder as the one place to write.
 *
 * @param declared What the tool declares.
 * @param planFolder The plan folder (absolute), or undefined outside plan mode.
 * @returns The declaration to narrow the grants by.
 *
 * @example
 * ```ts
 * import { withPlanFolder } from "./plan_mode_grants.ts";
 * const declared = withPlanFolder({ read: ["."], write: ["."] }, "/d/plans/s1");
 * if (declared?.write?.toString() !== ".,/d/plans/s1") throw new Error();
 * if (withPlanFolder({ net: true }, "/d/plans/s1")?.write !== undefined) throw new Error();
 * ```
 */
export function withPlanFolder(
  declared: ToolPermissions | undefined,
  planFolder: string | undefined,
): ToolPermissions | undefined {
  if (declared === undefined || planFolder === undefined) return declared;
  const add = (value: boolean | string[] | undefined) =>
    Array.isArray(value) && value.includes(".") ? [...value, planFolder] : value;
  const read = add(declared.read);
  const write = add(declared.write);
  return {
    ...declared,
    ...(read === undefined ? {} : { read }),
    ...(write === undefined ? {} : { write }),
  };
}
