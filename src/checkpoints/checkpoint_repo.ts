// The snapshots of one workspace: each is a commit in the shadow repository (shadow_git.ts)
// holding every file of the checkpointed folders that .gitignore does not hide, except files
// over the size limit and nested repositories, which are skipped with a note. A snapshot
// hashes only what changed since the last one (git's index); restoring writes chosen paths
// back from a snapshot.

import { join } from "node:path";
import { gitText, initShadowRepo, runGit, ShadowGitError, type ShadowRepo } from "./shadow_git.ts";
import { diffStat, type PathStat } from "./diff_stat.ts";

/** A file left out of a snapshot. */
export interface SkippedPath {
  path: string;
  /** "size": over the limit; "repository": a nested git repository (its files are its own). */
  why: "size" | "repository";
  bytes?: number;
}

/** One snapshot: a commit of the shadow repository. */
export interface Snapshot {
  commit: string;
  /** Files left out of this snapshot that had not been reported before. */
  skipped: SkippedPath[];
}

/** How a workspace is checkpointed. */
export interface CheckpointRepoOptions {
  /** The git program. */
  git: string;
  /** The workspace (the work tree). */
  workspace: string;
  /** The shadow repository's git folder (in harness's data folder, never in the project). */
  gitDir: string;
  /** Names this process's index and its chain of snapshots (a session id). */
  owner: string;
  /** Files larger than this are skipped (bytes). */
  maxFileBytes: number;
  /** Workspace-relative folders to checkpoint (the write grant inside it); default: all. */
  scope?: readonly string[];
}

const EMPTY_TREE_ARGS = ["hash-object", "-t", "tree", "--stdin"];

/** The snapshots of one workspace, taken one at a time. */
export class CheckpointRepo {
  readonly #repo: ShadowRepo;
  readonly #options: CheckpointRepoOptions;
  #last: string | undefined;
  /** The tree of `#last` when this process wrote it (so its index holds that tree). */
  #lastTree: string | undefined;
  /** The commit the ref was last moved to. */
  #kept: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #reported = new Set<string>();

  private constructor(repo: ShadowRepo, options: CheckpointRepoOptions) {
    this.#repo = repo;
    this.#options = options;
  }

  /**
   * Opens (creating when needed) the shadow repository of a workspace. This process gets its
   * own index, started from the one the last process left, so two sessions in one workspace
   * never share an index and a new session does not hash every file again.
   *
   * @param options Workspace, git folder, owner and limits.
   * @returns The repository.
   * @throws ShadowGitError when git cannot create or read it.
   */
  static async open(options: CheckpointRepoOptions): Promise<CheckpointRepo> {
    const indexFile = join(options.gitDir, `index-${safeName(options.owner)}`);
    const repo: ShadowRepo = {
      git: options.git,
      gitDir: options.gitDir,
      workTree: options.workspace,
      indexFile,
    };
    await initShadowRepo(repo);
    try {
      Deno.copyFileSync(join(options.gitDir, "index"), indexFile);
    } catch { /* the first session here: the first snapshot hashes every file */ }
    const store = new CheckpointRepo(repo, options);
    const head = await runGit(repo, ["rev-parse", "--verify", "--quiet", store.#ref()]);
    if (head.code === 0) store.#last = store.#kept = new TextDecoder().decode(head.stdout).trim();
    return store;
  }

  /** The ref that keeps this owner's snapshots reachable. */
  #ref(): string {
    return `refs/harness/${safeName(this.#options.owner)}`;
  }

  /** Runs `body` after every earlier operation: one git run on the index at a time. */
  #serial<T>(body: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(body, body);
    this.#queue = next.catch(() => {});
    return next;
  }

  /**
   * Takes a snapshot of the workspace as it is now. Unchanged files are not read again (git
   * compares their size and time with the index), so a snapshot costs a scan of the folders
   * plus the changed files.
   *
   * @returns The snapshot's commit and the files newly skipped.
   * @throws ShadowGitError when git fails.
   */
  snapshot(): Promise<Snapshot> {
    return this.#serial(() => this.#snapshot());
  }

  async #snapshot(): Promise<Snapshot> {
    const scope = this.#options.scope?.length ? ["--", ...this.#options.scope] : [];
    // -t tags each path: "R" for a file gone (deleted, now a folder, or behind a link), "C"
    // changed, "?" new. A path can be listed twice (a deleted file is also "changed").
    const listed = await gitText(this.#repo, [
      "ls-files",
      "-z",
      "-t",
      "--modified",
      "--deleted",
      "--others",
      "--exclude-standard",
      ...scope,
    ]);
    const gone = new Set<string>();
    const present = new Set<string>();
    for (const entry of listed.split("\0")) {
      if (entry.length < 3) continue;
      (entry.startsWith("R ") ? gone : present).add(entry.slice(2));
    }
    // Nothing changed since this process's last snapshot: one git run in all.
    if (gone.size === 0 && present.size === 0 && this.#last && this.#lastTree) {
      return { commit: this.#last, skipped: [] };
    }
    // `--remove` drops a missing file's entry; a path now a folder or behind a link needs
    // `--force-remove` (git refuses to look at it).
    const update: string[] = [];
    const displaced: string[] = [];
    const skipped: SkippedPath[] = [];
    const links = new Map<string, boolean>();
    for (const path of new Set([...gone, ...present])) {
      const kind = this.#classify(path, links);
      if (kind === "update" || kind === "missing") {
        update.push(path);
      } else if (kind === "displaced") {
        displaced.push(path);
      } else if (!this.#reported.has(kind.path)) {
        this.#reported.add(kind.path);
        skipped.push(kind);
      }
    }
    // Only skipped paths (they stay listed): the index still holds the last tree.
    if (update.length === 0 && displaced.length === 0 && this.#last && this.#lastTree) {
      return { commit: this.#last, skipped };
    }
    const nul = (paths: Iterable<string>) => [...paths].map((path) => `${path}\0`).join("");
    if (displaced.length > 0) {
      await gitText(this.#repo, ["update-index", "--force-remove", "-z", "--stdin"], {
        stdin: nul(displaced),
      });
    }
    if (update.length > 0) {
      await gitText(
        this.#repo,
        ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"],
        { stdin: nul(update) },
      );
    }
    const tree = (await gitText(this.#repo, ["write-tree"])).trim();
    if (this.#last !== undefined && tree === this.#lastTree) return { commit: this.#last, skipped };
    const parent = this.#last ? ["-p", this.#last] : [];
    const commit = (await gitText(this.#repo, ["commit-tree", tree, ...parent, "-m", "checkpoint"]))
      .trim();
    this.#last = commit;
    this.#lastTree = tree;
    this.#shareIndex();
    return { commit, skipped };
  }

  /**
   * Moves this owner's ref to the last snapshot, which keeps every snapshot of the chain
   * reachable (nothing in the repository collects garbage; the ref says what is in use).
   * Queued after the snapshots; a turn's end calls it without waiting.
   */
  keep(): Promise<void> {
    return this.#serial(async () => {
      if (this.#last === undefined || this.#last === this.#kept) return;
      await gitText(this.#repo, ["update-ref", this.#ref(), this.#last]);
      this.#kept = this.#last;
    });
  }

  /**
   * What to do with a listed path: record it ("update"), drop a missing file's entry
   * ("missing"), drop an entry git cannot look at any more ("displaced": now a folder, or
   * reached through a symbolic link), or leave it out with a note.
   */
  #classify(
    path: string,
    links: Map<string, boolean>,
  ): "update" | "missing" | "displaced" | SkippedPath {
    // `ls-files --others` names a nested repository as its folder, with a slash.
    if (path.endsWith("/")) return { path: path.slice(0, -1), why: "repository" };
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join("/");
      let link = links.get(folder);
      if (link === undefined) {
        try {
          link = !Deno.lstatSync(join(this.#options.workspace, folder)).isDirectory;
        } catch {
          link = false; // the folder is gone: its files are missing
        }
        links.set(folder, link);
      }
      if (link) return "displaced";
    }
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(join(this.#options.workspace, path));
    } catch {
      return "missing";
    }
    if (info.isDirectory) return "displaced";
    if (info.isFile && info.size > this.#options.maxFileBytes) {
      return { path, why: "size", bytes: info.size };
    }
    return "update";
  }

  /** Leaves this index for the next process to start from (a copy, renamed into place). */
  #shareIndex(): void {
    const shared = join(this.#options.gitDir, "index");
    const temporary = `${shared}.${safeName(this.#options.owner)}.tmp`;
    try {
      Deno.copyFileSync(this.#repo.indexFile, temporary);
      Deno.renameSync(temporary, shared);
    } catch { /* only a later process's first snapshot is slower */ }
  }

  /**
   * The paths that differ between two snapshots (either may be undefined: the empty tree).
   *
   * @param from The older snapshot's commit.
   * @param to The newer snapshot's commit.
   * @returns Workspace-relative paths, sorted.
   */
  changedPaths(from: string | undefined, to: string | undefined): Promise<string[]> {
    return this.#serial(async () => {
      if (from === to) return [];
      const a = from ?? await this.#emptyTree();
      const b = to ?? await this.#emptyTree();
      const out = await gitText(this.#repo, [
        "diff-tree",
        "-r",
        "-z",
        "--name-only",
        "--no-renames",
        "--ignore-submodules=all",
        a,
        b,
      ]);
      return out.split("\0").filter((path) => path !== "").sort();
    });
  }

  /**
   * Lines added and removed per changed path between two snapshots: what a subagent's report
   * says it changed, from the snapshots rather than from its own words.
   *
   * @param from The older snapshot's commit (undefined: the empty tree).
   * @param to The newer snapshot's commit.
   * @returns One entry per changed path, in git's order; a file with a NUL byte is `binary`,
   *   without line counts.
   */
  diffStat(from: string | undefined, to: string | undefined): Promise<PathStat[]> {
    return this.#serial(async () => {
      if (from === to) return [];
      return await diffStat(
        this.#repo,
        from ?? await this.#emptyTree(),
        to ?? await this.#emptyTree(),
      );
    });
  }

  async #emptyTree(): Promise<string> {
    return (await gitText(this.#repo, EMPTY_TREE_ARGS, { stdin: "" })).trim();
  }

  /**
   * Which of `paths` a snapshot holds.
   *
   * @param commit The snapshot.
   * @param paths Workspace-relative paths.
   * @returns The paths present in it.
   */
  present(commit: string, paths: readonly string[]): Promise<Set<string>> {
    return this.#serial(async () => {
      if (paths.length === 0) return new Set<string>();
      const out = await gitText(this.#repo, ["ls-tree", "-r", "-z", "--name-only", commit]);
      const all = new Set(out.split("\0").filter((path) => path !== ""));
      return new Set(paths.filter((path) => all.has(path)));
    });
  }

  /**
   * Puts `paths` back as a snapshot holds them: a path the snapshot has is written from it
   * (git's checkout-index, which replaces a symbolic link in the way instead of writing
   * through it); a path it lacks is removed, and so are the folders that removal leaves
   * empty and the snapshot lacks.
   *
   * @param commit The snapshot to restore from.
   * @param paths Workspace-relative paths.
   * @throws ShadowGitError when git fails.
   */
  restore(commit: string, paths: readonly string[]): Promise<void> {
    return this.#serial(async () => {
      if (paths.length === 0) return;
      const all = new Set(
        (await gitText(this.#repo, ["ls-tree", "-r", "-z", "--name-only", commit]))
          .split("\0")
          .filter((path) => path !== ""),
      );
      const write = paths.filter((path) => all.has(path));
      const remove = paths.filter((path) => !all.has(path));
      // Removals first: a link or file the snapshot lacks may stand where it has a folder.
      const folders = folderSet(all);
      for (const path of remove) removeInside(this.#options.workspace, path, folders);
      if (write.length === 0) return;
      // A scratch index holding the snapshot, so this process's index keeps what was seen.
      const scratch = `${this.#repo.indexFile}.restore`;
      try {
        await gitText(this.#repo, ["read-tree", commit], { indexFile: scratch });
        await gitText(this.#repo, ["checkout-index", "-f", "-z", "--stdin"], {
          indexFile: scratch,
          stdin: write.map((path) => `${path}\0`).join(""),
        });
      } finally {
        try {
          Deno.removeSync(scratch);
        } catch { /* not written */ }
      }
    });
  }

  /** Keeps the last snapshot and removes this process's index (the snapshots stay). */
  async close(): Promise<void> {
    await this.keep().catch(() => {});
    await this.#queue;
    try {
      Deno.removeSync(this.#repo.indexFile);
    } catch { /* never written */ }
  }
}

/** Every folder that holds a path of `paths` (workspace-relative, without a trailing slash). */
function folderSet(paths: Iterable<string>): Set<string> {
  const folders = new Set<string>();
  for (const path of paths) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
  }
  return folders;
}

/**
 * Removes one workspace file without following a symbolic link on the way to it (a folder
 * swapped for a link must not make harness delete a file elsewhere), then the folders above
 * it that are now empty and that the snapshot does not have.
 */
function removeInside(workspace: string, path: string, keep: ReadonlySet<string>): void {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const folder = join(workspace, ...parts.slice(0, i));
    try {
      if (!Deno.lstatSync(folder).isDirectory) return; // a link or a file: not our path any more
    } catch {
      return; // already gone
    }
  }
  try {
    Deno.removeSync(join(workspace, ...parts));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new ShadowGitError(`Cannot remove "${path}": ${(error as Error).message}`);
    }
  }
  for (let i = parts.length - 1; i >= 1; i--) {
    const folder = parts.slice(0, i).join("/");
    if (keep.has(folder)) return;
    try {
      Deno.removeSync(join(workspace, folder)); // only an empty folder is removed
    } catch {
      return;
    }
  }
}

/** A name safe in a file name and a ref: letters, digits, `-` and `_`. */
function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, "_") || "_";
}
