// Where skills live, without reading any: the skills folders of .agents/, .claude/, .opencode/,
// .gemini/ and .codex/ (skills/, or skill/ beside it) in every folder from the repository root
// down to the workspace, the same under the user's home, and harness's own. Cheap to ask (no
// parser loads), so a run without skill folders pays nothing more.

import { join } from "../platform/paths.ts";
import { instructionFolders } from "../config/project_instructions.ts";
import { folderProbe } from "../platform/folder_probe.ts";

/** A skills folder to look in. */
export interface SkillRoot {
  dir: string;
  scope: "project" | "user";
}

/** The workspace and the user's folders skills are looked for in. */
export interface SkillPlaces {
  cwd: string;
  /** The user's home; left out: no user folders. */
  home?: string;
  /** harness's config folder (~/.config/harness). */
  configDir?: string;
  /** opencode's config folder (default ~/.config/opencode). */
  opencodeDir?: string;
}

const DOT_FOLDERS = [".agents", ".claude", ".opencode", ".gemini", ".codex"];

/**
 * The key skills are looked up by: case, spaces, underscores and hyphens do not matter.
 *
 * @example
 * ```ts
 * import { skillKey } from "./skill_roots.ts";
 * if (skillKey("Git Commit Helper") !== skillKey("git-commit_helper")) throw new Error();
 * ```
 */
export function skillKey(name: string): string {
  return name.trim().toLowerCase().replace(/[\s_-]+/g, "-");
}

/**
 * The skills folders of a workspace in precedence order: the project's, nearest folder first,
 * then the user's (harness's own first).
 *
 * @example
 * ```ts
 * import { skillRoots } from "./skill_roots.ts";
 * const roots = skillRoots({ cwd: "/nowhere/w", home: "/h", configDir: "/h/.config/harness" });
 * if (roots[0]?.dir !== "/nowhere/w/.agents/skills") throw new Error(roots[0]?.dir);
 * if (!roots.some((r) => r.dir === "/h/.config/harness/skills" && r.scope === "user")) throw new Error();
 * ```
 */
export function skillRoots(options: SkillPlaces): SkillRoot[] {
  const roots: SkillRoot[] = [];
  const add = (base: string, scope: SkillRoot["scope"]) => {
    roots.push({ dir: join(base, "skills"), scope }, { dir: join(base, "skill"), scope });
  };
  for (const folder of instructionFolders(options.cwd).reverse()) {
    for (const dot of DOT_FOLDERS) add(join(folder, dot), "project");
  }
  if (options.configDir) add(options.configDir, "user");
  const home = options.home;
  if (home !== undefined) {
    for (const dot of DOT_FOLDERS) {
      add(
        dot === ".opencode"
          ? options.opencodeDir ?? join(home, ".config", "opencode")
          : join(home, dot),
        "user",
      );
    }
  }
  return roots;
}

/**
 * Whether any skills folder of a workspace exists: without one there is nothing to load.
 *
 * @example
 * ```ts
 * import { anySkillRoot } from "./skill_roots.ts";
 * if (anySkillRoot({ cwd: Deno.makeTempDirSync() })) throw new Error();
 * ```
 */
export function anySkillRoot(places: SkillPlaces): boolean {
  const isFolder = folderProbe();
  return skillRoots(places).some((root) => isFolder(root.dir));
}
