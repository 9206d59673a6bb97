// What each conversation of a run gets besides its provider and tools, the same for every
// front end: checkpoints of the write grant (with a resumed session's records), the hooks of
// the user's and the trusted project's config, and images: the ones a message names, the
// tools' pictures, both sent only to a model that can see and within image_max_size.

import type { Settings } from "../config/settings.ts";
import type { ConversationParts } from "../agent/conversation.ts";
import type { SessionRecorder } from "../agent/session_recorder.ts";
import type { TurnCheckpoint } from "../checkpoints/turn_record.ts";
import type { WorkspaceCheckpoints } from "../checkpoints/workspace_checkpoints.ts";
import type { ImagePart, Message } from "../messages.ts";
import type { Grants } from "../sandbox/grants.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import type { OpenedProvider } from "./provider_openers.ts";
import type { RunTools } from "./run_tools.ts";
import { conversationCheckpoints, openWorkspaceCheckpoints } from "./run_checkpoints.ts";
import { openRunHooks } from "./run_hooks.ts";
import { modelVision, type VisionVerdict } from "./model_vision.ts";
import { type ImageGate, refuseUserImages, withImageGate } from "./image_gate.ts";
import { imageMentions, mentionedImage } from "./prompt_images.ts";
import { jobNews } from "../jobs/job_notes.ts";
import { withJobOwner } from "./job_owner.ts";
import { withDiagnostics } from "./with_diagnostics.ts";
import { skillTurnHooks } from "./skill_turn_hooks.ts";

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

/** The extras of one conversation. */
export type ConversationExtras = Pick<
  ConversationParts,
  "checkpoints" | "callHooks" | "turnHooks" | "sessionStart" | "prepareMessage" | "turnNotes"
>;

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
      ask = modelVision(settings, {
        provider: opened.provider.name,
        model: opened.provider.model,
        baseUrl: opened.baseUrl ?? settings.baseUrl,
        ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
      });
      this.#sight.set(opened.provider, ask);
    }
    return ask();
  }

  /**
   * The tools with the image gate (a picture reaches only a model that can see), the
   * diagnostics after each edit, and, for one of several conversations of the workspace, its
   * own background jobs (`jobOwner`).
   */
  tools(runner: ToolRunner, jobOwner?: string): ToolRunner {
    const { tools, cwd } = this.#options;
    const owned = jobOwner === undefined ? runner : withJobOwner(runner, jobOwner);
    return withDiagnostics(withImageGate(owned, this.gate), tools.diagnostics, cwd);
  }

  /**
   * The extras of one conversation.
   *
   * @param recorder Its session log (hooks see its id).
   * @param options `resumed`: a resumed session's checkpoints; `messages`: the conversation's
   *   messages, once it exists (the skills' hooks read them); `jobOwner`: whose background
   *   jobs its turn notes tell (one of several conversations of the workspace).
   */
  forConversation(
    recorder: SessionRecorder,
    options: {
      resumed?: { checkpoints: readonly TurnCheckpoint[] };
      messages?: () => readonly Message[];
      jobOwner?: string;
    } = {},
  ): ConversationExtras {
    const { resumed, messages = () => [] } = options;
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
      ? conversationCheckpoints(this.#checkpoints, resumed?.checkpoints)
      : undefined;
    const hooks = openRunHooks(settings, {
      cwd,
      grants,
      yes,
      model: opened.provider.model,
      sessionId: () => recorder.id ?? "",
      sandbox: tools.commandSandbox,
      contextLength: () => this.#options.opened.contextLength,
      gate: tools.gate,
    });
    // Skills announce what was installed since the start and outlive a compaction.
    const turnHooks = tools.skills
      ? skillTurnHooks(hooks?.turnHooks, tools.skills, messages)
      : hooks?.turnHooks;
    return {
      ...(checkpoints ? { checkpoints } : {}),
      ...(hooks ? { callHooks: hooks.callHooks } : {}),
      ...(turnHooks ? { turnHooks } : {}),
      sessionStart: resumed ? "resume" : "startup",
      prepareMessage: (text, given) => this.#prepare(text, given),
      // Background jobs that ended (or wait for input) since the last message.
      turnNotes: () => {
        const news = jobNews(tools.jobs.scope(options.jobOwner ?? "").takeNews());
        return news === undefined ? [] : [news];
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
