// What an editor's prompt becomes before a turn, as the REPL's does: its blocks as text (a
// link to a workspace file as an @ mention), a custom command's text for `/name args`, and the
// mentions attached through the sandbox, a skill's text for `/skill-name words`. Also the
// commands the editor offers: ACP's own, the workspace's custom commands and its skills.

import type { AvailableCommand, ContentBlock } from "@agentclientprotocol/sdk";
import type { Workspace } from "../app/open_run.ts";
import { customCommandCall, prepareMessage } from "../turn_input/prepare_message.ts";
import { ACP_COMMANDS, promptText } from "./session_updates.ts";

/**
 * The commands an editor offers for a workspace: ACP's own, then the custom commands (the
 * project's only once trusted; ACP cannot ask, so untrusted ones are left out).
 *
 * @param workspace The session's workspace.
 * @returns The commands of available_commands_update.
 */
export async function availableCommands(workspace: Workspace): Promise<AvailableCommand[]> {
  const builtin = new Set(ACP_COMMANDS.map((command) => command.name));
  const { commands } = await workspace.commands();
  const custom = commands.filter((command) => !builtin.has(command.name));
  const skills = workspace.tools.skills?.commands(
    new Set([...builtin, ...custom.map((c) => c.name)]),
  ) ?? [];
  return [
    ...ACP_COMMANDS,
    ...custom.map((command) => ({
      name: command.name,
      description: command.description,
      ...(command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
    })),
    ...skills.map((skill) => ({
      name: skill.name,
      description: `Skill: ${skill.description}`,
      ...(skill.hint ? { input: { hint: skill.hint } } : {}),
    })),
  ];
}

/**
 * The prompt's text as the model gets it, or why it is not sent (a mention the sandbox
 * refuses).
 *
 * @param blocks The prompt's content blocks.
 * @param session The session's folder and workspace.
 * @param signal Stops the reads.
 */
export async function acpPromptText(
  blocks: readonly ContentBlock[],
  session: { cwd: string; workspace: Workspace },
  signal: AbortSignal,
): Promise<{ text: string } | { refused: string }> {
  let text = promptText(blocks, session.cwd);
  const { workspace } = session;
  if (text.trimStart().startsWith("/")) {
    text = customCommandCall(text, (await workspace.commands()).commands, workspace.tools.skills) ??
      text;
  }
  const prepared = await prepareMessage(text, {
    cwd: session.cwd,
    host: workspace.tools.host,
    rules: () => workspace.approval.rules,
  }, { signal });
  return "refused" in prepared ? prepared : { text: prepared.send };
}
