// The checkpoints of one workspace in this process, shared by its conversations: the live
// claim (taken at start, so other sessions in the folder are named at once), and, opened on
// the first call that may change a file, the shadow repository and the commands' baseline.
// Closed at exit, removing this process's index files.

import type { ShadowStore } from "./shadow_store.ts";
import type { CommandBaseline } from "./command_baseline.ts";
import { claimLive, type LiveClaim, liveSessionsNotice } from "./live_sessions.ts";
import type { CheckpointAccess } from "./checkpoint_paths.ts";

/**
 * The repository could not be opened this time (a full disk, another process's lock): the
 * turn that asked fails, a later one tries again.
 */
export class RetryLater extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RetryLater";
  }
}

/** The opened parts a conversation's checkpoints use. */
export interface CheckpointWorkspace {
  store: ShadowStore;
  commands: CommandBaseline;
}

/** How a workspace's checkpoints are opened. */
export interface WorkspaceCheckpointsOptions {
  /** The workspace (its real path). */
  workspace: string;
  /** The shadow repository's git folder. */
  gitDir: string;
  /** Names this process's files in the repository. */
  owner: string;
  /** This process's first session, for other processes' notice. */
  session?: string;
  maxFileBytes: number;
  access: CheckpointAccess;
  /**
   * Finds git and what to checkpoint when first needed: the git program and the folders
   * (undefined: all of the workspace), or why no turn can change a file here.
   */
  prepare(): Promise<{ git: string; scope?: readonly string[] } | { inactive: string }>;
  /** Watch the folders for commands (default: where the platform's watcher can). */
  watch?: boolean;
  /**
   * False when no turn can change a file here (no write grant reaches the workspace and no
   * command runs): no live claim is taken, since there is nothing to checkpoint and nothing
   * another session need know of this one.
   */
  mayChange?: boolean;
}

/** The claim of a process that changes no file: it names no one and holds nothing. */
const NO_CLAIM: LiveClaim = { others: [], othersNow: () => false, release: () => {} };

/** One workspace's checkpoints in this process. */
export class WorkspaceCheckpoints {
  readonly #options: WorkspaceCheckpointsOptions;
  readonly #claim: LiveClaim;
  #opened: Promise<CheckpointWorkspace | { inactive: string }> | undefined;

  constructor(options: WorkspaceCheckpointsOptions) {
    this.#options = options;
    this.#claim = options.mayChange === false ? NO_CLAIM : claimLive(options.gitDir, {
      owner: options.owner,
      ...(options.session ? { session: options.session } : {}),
    });
    // At exit (also after Deno.exit), what can be done without waiting: the watcher stops,
    // the baseline is left for the next process, this process's files go.
    globalThis.addEventListener("unload", this.#closeNow);
  }

  readonly #closeNow = () => {
    this.#baseline?.closeNow();
    this.#store?.keeper.keepNow();
    this.#claim.release();
  };

  /** The store and baseline, once opened (for closing at exit). */
  #store: ShadowStore | undefined;
  #baseline: CommandBaseline | undefined;

  /** The line naming other live sessions in the folder, for the first conversation only. */
  takeNotice(): string | undefined {
    if (this.#noticed) return undefined;
    this.#noticed = true;
    return liveSessionsNotice(this.#claim.others);
  }

  #noticed = false;

  /** Whether another session works in the folder now (a command's changes may be its). */
  othersWorking(): boolean {
    return this.#claim.othersNow();
  }

  /** The repository and baseline, opened once; or why nothing is checkpointed. */
  open(): Promise<CheckpointWorkspace | { inactive: string }> {
    this.#opened ??= this.#open();
    return this.#opened;
  }

  async #open(): Promise<CheckpointWorkspace | { inactive: string }> {
    const prepared = await this.#options.prepare();
    if ("inactive" in prepared) return prepared;
    // Loaded with the first turn that may change a file: a run that changes none never does.
    const [{ ShadowStore }, { CommandBaseline }] = await Promise.all([
      import("./shadow_store.ts"),
      import("./command_baseline.ts"),
    ]);
    const store = await ShadowStore.open({
      git: prepared.git,
      workspace: this.#options.workspace,
      gitDir: this.#options.gitDir,
      owner: this.#options.owner,
      maxFileBytes: this.#options.maxFileBytes,
      access: this.#options.access,
    }).catch((error) => {
      this.#opened = undefined; // a later turn tries again
      throw new RetryLater((error as Error).message);
    });
    const commands = new CommandBaseline({
      store,
      ...(prepared.scope ? { scope: prepared.scope } : {}),
      ...(this.#options.watch === undefined ? {} : { watch: this.#options.watch }),
    });
    this.#store = store;
    this.#baseline = commands;
    return { store, commands };
  }

  /** Stops watching, leaves the baseline for the next process, removes this process's files. */
  async close(): Promise<void> {
    globalThis.removeEventListener("unload", this.#closeNow);
    const opened = await this.#opened?.catch(() => undefined);
    if (opened && !("inactive" in opened)) {
      await opened.commands.close();
      await opened.store.close();
    }
    this.#claim.release();
  }
}
