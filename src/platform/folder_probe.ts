// Whether folders exist, asked of many paths that share parents (the skills and agents
// folders of .claude/, .gemini/, ... in the workspace and the home folder): each parent is
// looked at once, so a missing `.claude` answers for `.claude/skills` and `.claude/skill`
// without a failed stat of either (a failed stat costs a thrown error: 20-50 us at start).

import { dirname } from "./paths.ts";

/**
 * A probe for one round of questions (its answers are remembered, so make a new one for each).
 *
 * @returns Whether a path is a folder (links followed).
 *
 * @example
 * ```ts
 * import { folderProbe } from "./folder_probe.ts";
 * const isFolder = folderProbe();
 * if (!isFolder(Deno.cwd()) || isFolder("/no/such/folder/skills")) throw new Error();
 * ```
 */
export function folderProbe(): (path: string) => boolean {
  const known = new Map<string, boolean>();
  const look = (path: string): boolean => {
    let answer = known.get(path);
    if (answer === undefined) {
      try {
        answer = Deno.statSync(path).isDirectory;
      } catch {
        answer = false;
      }
      known.set(path, answer);
    }
    return answer;
  };
  return (path) => {
    const parent = dirname(path);
    return (parent === path || look(parent)) && look(path);
  };
}
