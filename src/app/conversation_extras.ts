// The stages each conversation of a run gets, the same for every front end: checkpoints of
// the write grant (with a resumed session's records), the hooks of the user's and the trusted
// project's config, images (the ones a message names, the tools' pictures, both sent only to a
// model that can see and within image_max_size), the code tools' index update and curator,
// the diagnostics after each edit, the note on a call the user changed, the news of background
// jobs with each message, and argument repair.

import type { Settings } from "../config/settings.ts";
import type { ConversationStages } from "../agent/conversation_parts.ts";
import type { SessionRecorder } from "../agent/session_recorder.ts";
import type { PlacedStage } from "../agent/call_flight.ts";
import type { TurnStage } from "../agent/turn_stage.ts";
import { EDIT_NOTE_STAGE } from "../agent/argument_edit.ts";
import { repairArguments } from "../agent/repair_arguments.ts";
import type { TurnCheckpoint } from "../checkpoints/turn_record.ts";
import type { FileState } from "../checkpoints/file_state.ts";
import type { PathStat } from "../checkpoints/diff_stat.ts";
import type { WorkspaceCheckpoints } from "../checkpoints/workspace_checkpoints.ts";
import type { ImagePart, Message } from "../messages.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import type { OpenedProvider } from "./provider_openers.ts";
import type { RunTools } from "./run_tools.ts";
import {
  checkpointStages,
  conversationCheckpoints,
  openWorkspaceCheckpoints,
} from "./run_checkpoints.ts";
import type { VisionVerdict } from "./model_vision.ts";
import { type ImageGate, imageGateStage, refuseUserImages } from "./image_gate.ts";
import { imageMentions, mentionedImage } from "../turn_input/prompt_images.ts";
import { skillTurnStage } from "../turn_input/skill_turn_stage.ts";
import { jobNews } from "../jobs/job_notes.ts";
import type { JobScope } from "../jobs/job_control.ts";
import { diagnosticsStages } from "./diagnostics_stages.ts";

/** What the extras of a workspace's conversations are made from. */
export interface ExtrasOptions {
  settings: Settings;
  grants: Grants;
  cwd: string;
  /** --yes (hooks see permission_mode "bypassPermissions"). */
  yes: boolean;
  /** The run's model server, read when needed (/model may switch it). */
  readonly opened: OpenedProvider;
  tools: RunTools;
}

/** Makes the extras of a workspace's conversations (the model's sight is asked once). */
export class WorkspaceExtras {
  readonly #options: ExtrasOptions;
  readonly gate: ImageGate;

  /** The workspace's checkpoints, opened with its first conversation (null: off). */
  #checkpoints: WorkspaceCheckpoints | null | undefined;

  /** The answer to "can it see?" per model the run has used (/model switches it). */
  readonly #sight = new WeakMap<OpenedProvider["provider"], () => Promise<VisionVerdict>>();

  constructor(options: ExtrasOptions) {
    this.#options = options;
    this.gate = {
      maxBytes: options.settings.imageMaxSize,
      vision: () => this.#vision(),
    };
  }

  /** Whether the run's model (as it is now) can see, asked once per model. */
  #vision(): Promise<VisionVerdict> {
    const { settings, opened } = this.#options;
    let ask = this.#sight.get(opened.provider);
    if (ask === undefined) {
      // Loaded when an image first needs the answer: a run without images never asks.
      const asking = import("./model_vision.ts").then(({ modelVision }) =>
        modelVision(settings, {
          provider: opened.provider.name,
          model: opened.provider.model,
          baseUrl: opened.baseUrl ?? settings.baseUrl,
          ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
        })
      );
      ask = async () => await (await asking)();
      this.#sight.set(opened.provider, ask);
    }
    return ask();
  }

  /**
   * The stages of one conversation, in order: on each call's path the code tools' (index
   * update, curator), the image gate, the note on a changed call, the hooks' and the checkpoint
   * gate, then the front end's own; in each turn the message's images, the hooks' and the
   * checkpoints'.
   *
   * @param recorder Its session log (hooks see its id).
   * @param resumed A resumed session's checkpoints.
   * @param conversation A resumed session's checkpoints, the conversation's messages once it
   *   exists (the skills' stage reads them), the front end's own call stages (ACP's diffs), and
   *   whose background jobs its turns are told of (`jobOwner`: one of several conversations of
   *   the workspace, JobTable.scope), and whether it is a subagent's (the news of its jobs
   *   are its parent's).
   */
  forConversation(
    recorder: SessionRecorder,
    conversation: {
      resumed?: { checkpoints: readonly TurnCheckpoint[] };
      messages?: () => readonly Message[];
      front?: readonly PlacedStage[];
      child?: boolean;
      jobOwner?: string;
    } = {},
  ): ConversationStages {
    const { settings, grants, cwd, yes, opened, tools } = this.#options;
    // One per workspace: its conversations share the repository, the baseline and the claim.
    if (this.#checkpoints === undefined) {
      this.#checkpoints = openWorkspaceCheckpoints(settings, {
        cwd,
        grants,
        gate: tools.gate,
        sandbox: tools.commandSandbox,
        ...(recorder.id ? { session: recorder.id } : {}),
      }) ?? null;
    }
    const checkpoints = this.#checkpoints
      ? conversationCheckpoints(this.#checkpoints, conversation.resumed?.checkpoints)
      : undefined;
    const hooks = tools.openHooks?.(settings, {
      cwd,
      grants,
      yes,
      model: opened.provider.model,
      sessionId: () => recorder.id ?? "",
      sandbox: tools.commandSandbox,
      contextLength: () => this.#options.opened.contextLength,
      gate: tools.gate,
    });
    const checkpointing = checkpoints && checkpointStages(checkpoints);
    // Skills announce what was installed since the start and outlive a compaction.
    const skills = tools.skills &&
      skillTurnStage(tools.skills, conversation.messages ?? (() => []));
    return {
      call: [
        ...tools.stages,
        imageGateStage(this.gate),
        ...diagnosticsStages(tools.diagnostics, cwd),
        EDIT_NOTE_STAGE,
        ...(checkpointing ? [checkpointing.after] : []),
        ...(hooks?.call ?? []),
        ...(checkpointing ? [checkpointing.gate] : []),
        ...(conversation.front ?? []),
      ],
      turn: [
        this.#imagesStage(),
        ...(hooks ? [hooks.turn] : []),
        ...(skills ? [skills] : []),
        ...(conversation.child
          ? []
          : [jobNewsStage(tools.jobs.scope(conversation.jobOwner ?? ""))]),
        ...(checkpointing ? [checkpointing.turn] : []),
      ],
      parse: repairArguments,
      ...(checkpoints ? { checkpoints } : {}),
      ...(conversation.front ? { front: conversation.front } : {}),
    };
  }

  /**
   * Lines added and removed per file between the states a turn's checkpoint recorded: what a
   * subagent changed, for the footer of its report.
   *
   * @param states Path -> [before, after].
   * @returns The changes, or why they are unknown (checkpoints off, git failed).
   */
  async changedLines(
    states: Readonly<Record<string, readonly [FileState, FileState]>>,
  ): Promise<PathStat[] | { unknown: string }> {
    if (!this.#checkpoints) return { unknown: "checkpoints are off" };
    const opened = await this.#checkpoints.open().catch((error: Error) => ({
      inactive: error.message,
    }));
    // Inactive: no write grant reaches the workspace, so nothing can have changed.
    if ("inactive" in opened) return [];
    try {
      const { diffStatOfStates } = await import("../checkpoints/diff_stat.ts");
      return await diffStatOfStates(opened.store, states);
    } catch (error) {
      return { unknown: (error as Error).message };
    }
  }

  /** The images a message names, attached (or the message refused) before anything else. */
  #imagesStage(): TurnStage {
    return {
      name: "images",
      prepare: async (message) => {
        if (message.text === null) return undefined;
        const prepared = await this.#prepare(message.text, message.images);
        if ("refused" in prepared) return prepared;
        message.images = prepared.images;
        return undefined;
      },
    };
  }

  /** The images a message names (`@pic.png`), with the given ones, checked against the gate. */
  async #prepare(
    text: string,
    given: readonly ImagePart[],
  ): Promise<{ images: ImagePart[] } | { refused: string }> {
    const images = [...given];
    const add = (image: ImagePart) => {
      if (!images.some((known) => known.sha256 === image.sha256)) images.push(image);
    };
    const read = mentionedImage(this.#options.tools.host);
    for (const path of imageMentions(text)) {
      const found = await read(path);
      if (!found.ok) {
        return { refused: `Cannot attach "@${path}": ${found.message}. The message was not sent` };
      }
      add(found.part);
    }
    // A pasted path comes with the message (the REPL's paste events); a path in the text is
    // text.
    const refused = await refuseUserImages(images, this.gate);
    return refused === undefined ? { images } : { refused };
  }
}

/** Background jobs that ended (or wait for input) since the last message: said with the next. */
function jobNewsStage(jobs: JobScope): TurnStage {
  return {
    name: "job_news",
    send(message) {
      if (message.text === null) return Promise.resolve(undefined);
      const news = jobNews(jobs.takeNews());
      if (news !== undefined) message.notes.push(news);
      return Promise.resolve(undefined);
    },
  };
}
