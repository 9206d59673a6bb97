// `harness agents [trust]` and `harness skills [trust]`: list the agent files and skills harness
// finds for the current folder (name, format or scope, where each came from, the files skipped
// and why), or trust the project's files as they are now, as `harness plugin trust` does for
// plugins. Listing asks nothing: untrusted project files are listed as skipped.

import { configDir, homeDir } from "../../config/folders.ts";
import { markTrusted, trustedHash } from "../../permissions/project_trust.ts";
import { EXIT } from "../../app/exit_codes.ts";
import type { CommandIO } from "../command_io.ts";
import { terminalSafe } from "../../platform/terminal_text.ts";

const UNTRUSTED = 'untrusted: run "harness COMMAND trust" here after reading them';

/** The trust check of a listing: files trusted as they are now load, the rest are named. */
function readOnlyTrust(command: "agents" | "skills") {
  return async (files: readonly string[]) => {
    const load: string[] = [];
    for (const file of files) {
      if ("hash" in await trustedHash(file)) load.push(file);
    }
    return { load, untrusted: UNTRUSTED.replace("COMMAND", command) };
  };
}

/** A trust check that records every project file as trusted, and says which. */
function trustAll(io: CommandIO, trusted: string[]) {
  return async (files: readonly string[]) => {
    for (const file of files) {
      await markTrusted(file, {
        io: {
          write: (text) => io.printError(terminalSafe(text)),
          readLine: () => Promise.resolve(null),
        },
      });
      trusted.push(file);
    }
    return { load: files, untrusted: "" };
  };
}

/**
 * Runs `harness agents` or `harness skills`.
 *
 * @param command Which list, and whether to trust the project's files first.
 * @param cwd The folder.
 * @param io Error output.
 * @returns The exit code.
 */
export async function runLibraryCommand(
  command: { kind: "agents" | "skills"; trust: boolean },
  cwd: string,
  io: CommandIO,
): Promise<number> {
  const home = homeDir();
  const trusted: string[] = [];
  const check = command.trust ? trustAll(io, trusted) : readOnlyTrust(command.kind);
  if (command.kind === "agents") {
    const { discoverAgents } = await import("../../agents/discover_agents.ts");
    const { formatAgentList } = await import("../../agents/agent_report.ts");
    const found = await discoverAgents({ cwd, home, configDir: configDir(), trusted: check });
    // Names and descriptions come with the repository: escapes show as text.
    console.log(terminalSafe(formatAgentList(found, { cwd, home })));
  } else {
    const { discoverSkills } = await import("../../skills/skill_files.ts");
    const { formatSkillList } = await import("../../skills/skill_report.ts");
    const found = await discoverSkills({
      cwd,
      home,
      configDir: configDir(),
      trusted: check,
      // Listing follows links anywhere: it reads SKILL.md only, and says where each leads.
      readable: () => true,
    });
    console.log(terminalSafe(formatSkillList(found, { cwd, home })));
  }
  if (command.trust) {
    console.log(
      trusted.length === 0
        ? `No project ${command.kind === "agents" ? "agent files" : "skills"} to trust here`
        : `Trusted ${trusted.length} project file${
          trusted.length === 1 ? "" : "s"
        } as they are now`,
    );
  }
  return EXIT.ok;
}
