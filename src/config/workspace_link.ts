// A project file that is a link out of its workspace: `.harness` (or `.harness/config.jsonc`)
// leading into another folder would carry that folder's config, relative paths and trust into
// this one, so harness ignores it and says why. On the start-up path: no `node:` import.

import { paths } from "../platform/paths.ts";
import { realPathIfExists } from "../platform/real_path_if_exists.ts";

/**
 * Why a project file cannot be used because it leads out of the workspace, or undefined when it
 * is the workspace's own (or absent).
 *
 * @param cwd The workspace.
 * @param file The file (`<cwd>/.harness/config.jsonc`).
 * @returns The sentence for the user.
 *
 * @example
 * ```ts
 * import { linkOutOfWorkspace } from "./workspace_link.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const other = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.symlink(other, `${dir}/.harness`);
 * await Deno.writeTextFile(`${other}/config.jsonc`, "{}");
 * if (!linkOutOfWorkspace(dir, `${dir}/.harness/config.jsonc`)?.includes("leads out of the workspace")) throw new Error();
 * if (linkOutOfWorkspace(dir, `${dir}/none.jsonc`) !== undefined) throw new Error();
 * ```
 */
export function linkOutOfWorkspace(cwd: string, file: string): string | undefined {
  const real = realPathIfExists(file);
  const root = realPathIfExists(cwd);
  if (real === undefined || root === undefined) return undefined;
  const rel = paths.relative(root, real);
  if (rel !== "" && !rel.startsWith("..") && !paths.isAbsolute(rel)) return undefined;
  return `"${file}" leads out of the workspace (to "${real}"): a repository's config must be ` +
    "its own file, so that its relative paths and your trust in it belong to this folder; " +
    "harness ignores it";
}
