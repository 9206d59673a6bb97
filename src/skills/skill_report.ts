// The list of skills `/skills` and `harness skills` print: each skill with where it came from,
// then the files skipped with the reason. Plain text; paths shown relative to the workspace or
// as ~/... for the user's.

import { relative } from "node:path";
import type { DiscoveredSkills } from "./skill_files.ts";
import { oneLine } from "./skill_catalog.ts";

/** How a path is shown: relative inside the workspace, `~/...` in the home, else as it is. */
export function shownPath(path: string, places: { cwd: string; home?: string }): string {
  const inCwd = relative(places.cwd, path);
  if (!inCwd.startsWith("..") && !inCwd.startsWith("/")) return inCwd || ".";
  if (places.home) {
    const inHome = relative(places.home, path);
    if (!inHome.startsWith("..") && !inHome.startsWith("/")) return `~/${inHome}`;
  }
  return path;
}

/**
 * The skills and the skipped files, one line each.
 *
 * @param found What discovery found (and skills added since, in `skills`).
 * @param places The workspace and home, to show paths short.
 *
 * @example
 * ```ts
 * import { formatSkillList } from "./skill_report.ts";
 * const text = formatSkillList({ skills: [], skipped: [{ file: "/w/.claude/skills/x/SKILL.md", reason: "it has no description" }] }, { cwd: "/w" });
 * if (!text.includes("No skills installed") || !text.includes(".claude/skills/x/SKILL.md: it has no description")) throw new Error(text);
 * ```
 */
export function formatSkillList(
  found: DiscoveredSkills,
  places: { cwd: string; home?: string },
): string {
  const lines: string[] = [];
  if (found.skills.length === 0) {
    lines.push(
      "No skills installed: put SKILL.md folders in .claude/skills/, .agents/skills/ or " +
        "~/.config/harness/skills/",
    );
  } else {
    lines.push(`Skills (${found.skills.length}):`);
    const width = Math.min(28, Math.max(...found.skills.map((skill) => skill.name.length)));
    for (const skill of found.skills) {
      lines.push(
        `  ${skill.name.padEnd(width)}  ${skill.scope.padEnd(7)}  ${
          shownPath(skill.folder, places)
        }  ${oneLine(skill.description, 80)}`,
      );
      for (const note of skill.notes) lines.push(`    note: ${note}`);
    }
  }
  if (found.skipped.length > 0) {
    lines.push(`Skipped (${found.skipped.length}):`);
    for (const skip of found.skipped) {
      lines.push(`  ${shownPath(skip.file, places)}: ${skip.reason}`);
    }
  }
  return lines.join("\n");
}
