// Plan mode (--plan, /plan, Shift-Tab in the REPL, an editor's session mode): the model reads,
// searches and runs commands, and writes one plan file; nothing else in the workspace changes.
// Enforced by construction, not by the prompt: while it is on, the conversation's calls run in
// a tool set built from plan mode's grants (plan_mode_grants.ts: writing narrowed to the plan
// folder, and what commands could write mounted as a throwaway copy), and its subagents start
// from those grants. The tools offered stay what they were, so the prompt's prefix (and the
// server's cached copy of it) stays byte for byte; the switch is told to the model with the
// next message, never by changing an earlier one. The task list stays. Leaving is the front
// end's question: implement now, keep planning, or start fresh with only the plan.

import { join, relative } from "../platform/paths.ts";
import type { Settings } from "../config/settings.ts";
import { dataDir, ensurePrivateDir, homeDir, workspaceDataDir } from "../config/folders.ts";
import type { ConversationParts } from "../agent/conversation_parts.ts";
import type { TurnStage } from "../agent/turn_stage.ts";
import { makeGatedDir, readGatedTextFile } from "../gate/gated_files.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { planModeGrants } from "../sandbox/grants/plan_mode_grants.ts";
import { grantCovers } from "../sandbox/grants/permission_value.ts";
import { type ToolScope, withScopeFiles } from "../sandbox/grants/tool_offer.ts";
import type { RunTools } from "./run_tools.ts";
import type { ScopedSet } from "./scoped_tools.ts";

/** What a conversation's plan mode is made from. */
export interface PlanModeOptions {
  settings: Pick<Settings, "planFolder">;
  cwd: string;
  /** The workspace's grants. */
  grants: Grants;
  tools: RunTools;
  /** The conversation's session id, for its plan's place. */
  sessionId(): string | null;
  /** harness's data folder (tests); default from the environment. */
  dataRoot?: string;
}

/** What the user chose when leaving plan mode. */
export type PlanExit = "implement" | "keep" | "fresh";

const modes = new WeakMap<ConversationParts, PlanMode>();

/**
 * The plan mode of a conversation (every conversation a workspace makes has one).
 *
 * @param conversation The conversation.
 * @returns Its plan mode, or undefined for one made elsewhere (tests).
 */
export function planModeOf(conversation: { parts: ConversationParts }): PlanMode | undefined {
  return modes.get(conversation.parts);
}

/** One conversation's plan mode. */
export class PlanMode {
  readonly #options: PlanModeOptions;
  #parts: ConversationParts | undefined;
  /** The conversation's own tools, while plan mode narrows them. */
  #own: ToolScope | undefined;
  #scoped: ScopedSet | undefined;
  /** What the model was last told (false: nothing yet; it starts out of plan mode). */
  #told = false;
  /** A line for the model with the next message about how the plan ended. */
  #leaving: string | undefined;
  readonly stage: TurnStage;

  constructor(options: PlanModeOptions) {
    this.#options = options;
    this.stage = {
      name: "plan_mode",
      send: (message) => {
        if (message.text === null || this.active === this.#told) return Promise.resolve(undefined);
        this.#told = this.active;
        message.notes.push(this.active ? this.#onNote() : this.#leaving ?? this.#offNote());
        this.#leaving = undefined;
        return Promise.resolve(undefined);
      },
    };
  }

  /** Binds it to the conversation's parts (whose tools it narrows). */
  bind(parts: ConversationParts): void {
    this.#parts = parts;
    modes.set(parts, this);
  }

  /** Whether plan mode is on. */
  get active(): boolean {
    return this.#own !== undefined;
  }

  /** The folder plan mode may write: the workspace's `plan_folder`, or the data folder's. */
  get folder(): string {
    const { settings, cwd } = this.#options;
    if (settings.planFolder !== undefined) return join(cwd, settings.planFolder);
    const root = workspaceDataDir(join(this.#options.dataRoot ?? dataDir(), "plans"), cwd);
    return join(root, this.#options.sessionId() ?? "no-session");
  }

  /** The plan file: absolute, or relative to the workspace when it is inside it. */
  get file(): string {
    const { settings, cwd } = this.#options;
    const id = (this.#options.sessionId() ?? "").slice(0, 8);
    const name = settings.planFolder !== undefined && id !== "" ? `plan-${id}.md` : "plan.md";
    const path = join(this.folder, name);
    return grantCovers("read", [cwd], path) ? relative(cwd, path) : path;
  }

  /**
   * Turns plan mode on: the conversation's calls run in plan mode's tools from now on.
   *
   * @returns A line for the user, or why plan mode cannot start.
   */
  async enter(): Promise<{ line: string } | { error: string }> {
    const parts = this.#parts;
    if (parts === undefined || this.active) return { line: "Plan mode is already on" };
    const { cwd, grants, tools, settings } = this.#options;
    const folder = this.folder;
    const inside = grantCovers("read", [cwd], folder);
    if (settings.planFolder !== undefined && (!inside || folder === cwd)) {
      return {
        error: `Cannot start plan mode: plan_folder "${settings.planFolder}" must be a ` +
          "folder inside the workspace: fix it in your config",
      };
    }
    const plan = planModeGrants(grants, { planFolder: folder, workspace: cwd, home: homeDir() });
    const scoped = tools.scoped.open({ ...plan, planFolder: folder });
    try {
      if (inside) await makeGatedDir(scoped.gate, folder);
      else ensurePrivateDir(folder);
    } catch (error) {
      return {
        error: `Cannot start plan mode: cannot make "${folder}": ${(error as Error).message}`,
      };
    }
    this.#own = parts.tools;
    this.#scoped = scoped;
    parts.tools = {
      // The editor's files too stay behind plan mode's gate: only the plan is written.
      ...withScopeFiles(parts.tools, scoped),
      calls: {
        set: scoped.set,
        grants: scoped.grants,
        ...(plan.scratch.length > 0 ? { scratch: plan.scratch } : {}),
        planFolder: folder,
        lacking: "Not available in plan mode: its server runs outside plan mode's sandbox. " +
          "Plan without it, or ask the user to leave plan mode",
      },
    };
    return {
      line: `Plan mode: the model reads, searches and runs commands (their changes are ` +
        `thrown away) and writes only its plan, ${this.file}`,
    };
  }

  /** The plan as written so far, or undefined when there is none. */
  async plan(): Promise<string | undefined> {
    const gate = this.#scoped?.gate;
    if (gate === undefined) return undefined;
    return await readGatedTextFile(gate, join(this.folder, this.file.split(/[\\/]/).pop()!))
      .catch(() => undefined);
  }

  /**
   * Turns plan mode off: the conversation's own tools again.
   *
   * @param exit What the user chose (`fresh`: the front end starts a new conversation).
   */
  leave(exit: PlanExit = "implement"): void {
    const parts = this.#parts;
    if (parts === undefined || this.#own === undefined || exit === "keep") return;
    parts.tools = this.#own;
    this.#own = undefined;
    this.#leaving = exit === "implement"
      ? `[Plan mode is off: you may change files again. Carry out the plan in ${this.file} now.]`
      : undefined;
  }

  #onNote(): string {
    return `[Plan mode is on: explore and plan; change nothing. You may read, search and run ` +
      `commands (the workspace is read-only to them, and what they write is thrown away). ` +
      `Write your plan to ${this.file} with write_file; nothing else can be written. When it ` +
      `is ready, say so: the user leaves plan mode to have it carried out.]`;
  }

  #offNote(): string {
    return "[Plan mode is off: you may change files again.]";
  }
}
