// What a command changed. A command may touch any file, so before it runs the content of
// every file must already be in the shadow repository: the baseline, this process's git index
// of the checkpointed folders, read once before a session's first command (with progress when
// that is slow), plus the states of the files changed since, kept in memory (an overlay: the
// large index is never rewritten per command). While the command runs a watcher collects the
// paths that change (change_watcher.ts), so only those are read; where none works, the folders
// are scanned again and a new file counts only if it changed while the command ran. Each path
// comes back with its state before and after. A file the baseline lacks counts as created
// ("absent" before) only if it was born while the command ran: an ignored file a rewritten
// .gitignore uncovers is unknown, never something to delete.

import { join, relative, sep } from "../platform/paths.ts";
import { gitText } from "./shadow_git.ts";
import { parseStaged, type ShadowStore } from "./shadow_store.ts";
import { safeName } from "./checkpoint_paths.ts";
import { refusedPath } from "./checkpoint_paths.ts";
import { ABSENT, type FileState, UNKNOWN } from "./file_state.ts";
import { ChangeWatcher, sentinelFolder, watcherOrdersEvents } from "./change_watcher.ts";
import { IndexEntries, updateIndex } from "./index_entries.ts";
import { bornSince, changedSince, isFolder } from "./file_times.ts";

/** One path a command changed, before and after. */
export interface CommandChange {
  path: string;
  before: FileState;
  after: FileState;
}

/** A command being watched. */
export interface CommandWindow {
  /** When it started (epoch ms). */
  start: number;
  /** Paths the watcher reported while it ran; undefined: scan when it ends. */
  paths: Set<string> | undefined;
}

/** How the baseline is kept. */
export interface CommandBaselineOptions {
  store: ShadowStore;
  /** Workspace-relative folders to checkpoint; undefined: the whole workspace. */
  scope?: readonly string[];
  /** Whether to watch the folders (default: where the platform's watcher orders events). */
  watch?: boolean;
}

/** Pathspecs passed on git's command line before a whole scan is cheaper. */
const MAX_PATHSPECS = 2000;
/** How long a first reading of the folders may take before progress is shown. */
const PROGRESS_AFTER_MS = 1000;

/** The baseline of one workspace's files, for the commands of one process. */
export class CommandBaseline {
  readonly #options: CommandBaselineOptions;
  #ready: Promise<void> | undefined;
  #watcher: ChangeWatcher | undefined;
  #windows = new Set<CommandWindow>();
  /** Paths the watcher reported that the baseline has not read yet. */
  #dirty = new Set<string>();
  /** The states of files read since the index was written (newer than its entries). */
  #overlay = new Map<string, FileState>();
  /** The index's entries, read after it was last written. */
  #entries: IndexEntries | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: CommandBaselineOptions) {
    this.#options = options;
  }

  /** Runs `body` after every earlier step: one git run on the baseline index at a time. */
  #serial<T>(body: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(body, body);
    this.#queue = next.catch(() => {});
    return next;
  }

  /**
   * A command is about to run: the baseline is brought up to date (the first time, every
   * file is read, with `progress` told when that takes over a second) and a window opens.
   *
   * @param progress Told one line when the first reading is slow.
   * @returns The window to hand to {@linkcode CommandBaseline.end}.
   * @throws ShadowGitError when git fails.
   */
  begin(progress?: (line: string) => void): Promise<CommandWindow> {
    return this.#serial(async () => {
      this.#ready ??= this.#firstReading(progress).catch((error) => {
        this.#ready = undefined; // the next command tries again
        throw error;
      });
      await this.#ready;
      await this.#catchUp();
      const window: CommandWindow = {
        start: Date.now(),
        paths: this.#watcher ? new Set() : undefined,
      };
      this.#windows.add(window);
      return window;
    });
  }

  /**
   * The command ended: the paths that changed while it ran, each with its state before and
   * after; the baseline takes their new content.
   *
   * @param window What {@linkcode CommandBaseline.begin} returned.
   * @returns The changes, sorted by path.
   * @throws ShadowGitError when git fails.
   */
  end(window: CommandWindow): Promise<CommandChange[]> {
    return this.#serial(async () => {
      await this.#collect();
      this.#windows.delete(window);
      const watched = window.paths;
      if (watched === undefined || watched.size > MAX_PATHSPECS) return await this.#scanEnd(window);
      const { paths, indexed } = await this.#candidates([...watched]);
      const after = await this.#options.store.read(paths);
      const changes = this.#compare(paths, indexed, after, window.start);
      for (const [path, state] of after) this.#overlay.set(path, state);
      for (const path of watched) this.#dirty.delete(path);
      return changes;
    });
  }

  /** Without the watcher's paths: a scan of the folders, new files kept by their times. */
  async #scanEnd(window: CommandWindow): Promise<CommandChange[]> {
    const listed = await this.#scan();
    const paths = [...listed.keys()].filter((path) =>
      listed.get(path) !== "?" || changedSince(this.#absolute(path), window.start)
    );
    if (paths.length === 0) return [];
    const indexed = await this.#staged(paths);
    await this.#update(paths, listed);
    const after = await this.#options.store.read(paths);
    for (const path of paths) this.#overlay.delete(path); // the index holds them now
    return this.#compare(paths, indexed, after, window.start);
  }

  /**
   * The changes among `paths`: each one's state before (the overlay, else the index, else
   * absent when it was born after `start`) against its state now.
   */
  #compare(
    paths: readonly string[],
    indexed: ReadonlyMap<string, FileState>,
    after: ReadonlyMap<string, FileState>,
    start: number,
  ): CommandChange[] {
    const changes: CommandChange[] = [];
    for (const path of [...paths].sort()) {
      const was = this.#overlay.get(path) ?? indexed.get(path) ??
        (bornSince(this.#absolute(path), start) ? ABSENT : UNKNOWN.ignored);
      const now = after.get(path) ?? ABSENT;
      if (was !== now) changes.push({ path, before: was, after: now });
    }
    return changes;
  }

  /**
   * The files among (and under) watched paths that checkpoints cover: those the index or the
   * overlay holds, and new ones git does not ignore. Neither git run walks more than the
   * paths (asking git for modified files would look at every file).
   */
  async #candidates(watched: readonly string[]): Promise<{
    paths: string[];
    indexed: Map<string, FileState>;
  }> {
    this.#entries ??= await IndexEntries.read(this.#options.store.repo);
    const entries = this.#entries;
    const indexed = new Map<string, FileState>();
    const paths = new Set<string>();
    const unknown: string[] = [];
    for (const watchedPath of watched) {
      for (const path of entries.under(watchedPath)) {
        indexed.set(path, entries.get(path)!);
        paths.add(path);
      }
      for (const path of this.#overlay.keys()) {
        if (path === watchedPath || path.startsWith(`${watchedPath}/`)) paths.add(path);
      }
      if (entries.get(watchedPath) === undefined) unknown.push(watchedPath);
    }
    // New files and folders: what git does not ignore in them (it walks only these paths).
    if (unknown.length > 0) {
      const others = await gitText(this.#options.store.repo, [
        "ls-files",
        "-z",
        "--others",
        "--exclude-standard",
        "--",
        ...unknown,
      ]);
      for (const path of others.split("\0")) if (this.#covered(path)) paths.add(path);
    }
    return { paths: [...paths], indexed };
  }

  /** Whether a path git listed is one checkpoints take (not a nested repository, readable). */
  #covered(path: string): boolean {
    return path !== "" && !path.endsWith("/") && refusedPath(path) === undefined &&
      this.#options.store.options.access.mayRead(this.#absolute(path));
  }

  /** The first reading: the watcher starts first, so nothing changed meanwhile is missed. */
  async #firstReading(progress?: (line: string) => void): Promise<void> {
    const started = Date.now();
    const timer = progress
      ? setTimeout(() => {
        progress(
          "Checkpoints: reading the folder's files before the first command (once per " +
            "session), so /undo can put back what commands change…",
        );
      }, PROGRESS_AFTER_MS)
      : undefined;
    try {
      this.#seedIndex();
      const { store } = this.#options;
      if (this.#options.watch ?? watcherOrdersEvents()) {
        const roots = (this.#options.scope ?? [""]).map((folder) =>
          join(store.options.workspace, folder)
        ).filter((root) => isFolder(root));
        this.#watcher = await ChangeWatcher.start(
          roots,
          sentinelFolder(store.repo.gitDir, store.options.owner),
        ).catch(() => undefined); // no watcher: every command scans instead
      }
      const listed = await this.#scan();
      await this.#update([...listed.keys()], listed);
    } finally {
      clearTimeout(timer);
    }
    if (progress && Date.now() - started > PROGRESS_AFTER_MS) {
      progress(`Checkpoints: read the folder in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  }

  /** Starts this process's index from the one the last process left (the same files match). */
  #seedIndex(): void {
    const { repo } = this.#options.store;
    try {
      Deno.copyFileSync(join(repo.gitDir, "index"), repo.indexFile);
    } catch { /* the first session here: every file is hashed once */ }
  }

  /** Takes the watcher's paths: into every open window, and into the baseline's to-do. */
  async #collect(): Promise<void> {
    if (this.#watcher === undefined) return;
    const flushed = await this.#watcher.flush();
    if (flushed.overflow) {
      // The watcher lost track: every open window scans, and so does the baseline.
      for (const window of this.#windows) window.paths = undefined;
      this.#dirty.clear();
      this.#dirty.add("");
    }
    for (const absolute of flushed.paths) {
      const path = this.#relative(absolute);
      if (path === undefined) continue;
      this.#dirty.add(path);
      for (const window of this.#windows) window.paths?.add(path);
    }
  }

  /**
   * Before a command: the files changed since the last reading are read into the overlay
   * (without a watcher, or when it lost track, the folders are scanned into the index).
   */
  async #catchUp(): Promise<void> {
    await this.#collect();
    const whole = this.#watcher === undefined || this.#dirty.has("") ||
      this.#dirty.size > MAX_PATHSPECS;
    if (whole) {
      this.#dirty.clear();
      const listed = await this.#scan();
      await this.#update([...listed.keys()], listed);
      this.#overlay.clear(); // the index holds every file as it is now
      return;
    }
    if (this.#dirty.size === 0) return;
    const { paths } = await this.#candidates([...this.#dirty]);
    this.#dirty.clear();
    for (const [path, state] of await this.#options.store.read(paths)) {
      this.#overlay.set(path, state);
    }
  }

  /**
   * A scan of the folders: the files that differ from the index (git's tags: "C" changed,
   * "R" gone, "?" new) under the scope; files git ignores are not listed.
   */
  async #scan(): Promise<Map<string, string>> {
    const { store, scope } = this.#options;
    const specs = scope ?? [];
    const out = await gitText(store.repo, [
      "ls-files",
      "-z",
      "-t",
      "--modified",
      "--deleted",
      "--others",
      "--exclude-standard",
      ...(specs.length > 0 ? ["--", ...specs] : []),
    ]);
    const listed = new Map<string, string>();
    for (const entry of out.split("\0")) {
      if (entry.length < 3) continue;
      const path = entry.slice(2);
      // A nested repository is listed as its folder: its files are its own.
      if (!this.#covered(path)) continue;
      const tag = entry[0]!;
      if (!listed.has(path) || tag === "R") listed.set(path, tag);
    }
    return listed;
  }

  /** The baseline's states of paths (those it holds). */
  async #staged(paths: readonly string[]): Promise<Map<string, FileState>> {
    const { store } = this.#options;
    const args = paths.length > MAX_PATHSPECS ? [] : ["--", ...paths];
    const states = parseStaged(await gitText(store.repo, ["ls-files", "-s", "-z", ...args]));
    if (args.length > 0) return states;
    const wanted = new Set(paths);
    return new Map([...states].filter(([path]) => wanted.has(path)));
  }

  /** Takes paths into the index (its entries are read again when next needed). */
  async #update(paths: readonly string[], listed: ReadonlyMap<string, string>): Promise<void> {
    this.#entries = undefined;
    await updateIndex(this.#options.store, paths, listed);
  }

  #absolute(path: string): string {
    return join(this.#options.store.options.workspace, path);
  }

  /** A watched path as a workspace path, or undefined (outside, in a .git folder, unreadable). */
  #relative(absolute: string): string | undefined {
    const { options } = this.#options.store;
    const inside = relative(options.workspace, absolute);
    if (inside === "" || inside.startsWith("..")) return undefined;
    const path = inside.split(sep).join("/");
    if (refusedPath(path) !== undefined) return undefined;
    return options.access.mayRead(absolute) ? path : undefined;
  }

  /** Waits for the steps under way, then stops watching and leaves the baseline. */
  async close(): Promise<void> {
    await this.#queue;
    this.closeNow();
  }

  /**
   * Stops watching and leaves the baseline for the next process to start from (the same
   * files are then not hashed again), without waiting (at exit).
   */
  closeNow(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    if (this.#ready === undefined) return;
    const { repo, options } = this.#options.store;
    const shared = join(repo.gitDir, "index");
    const temporary = `${shared}.${safeName(options.owner)}.tmp`;
    try {
      Deno.copyFileSync(repo.indexFile, temporary);
      Deno.renameSync(temporary, shared);
    } catch { /* only a later process's first command is slower */ }
  }
}
