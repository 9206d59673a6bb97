// The shadow repository as checkpoints use it: the state of named workspace paths now (their
// content hashed into the repository, which lives in harness's data folder), writing states
// back (content through git's checkout-index, "absent" as a removal), and keeping a turn's
// blobs reachable under this process's ref. Nothing here scans the workspace: a one-file turn
// costs a few git runs whatever the size of the tree. Every path read passes the session's
// read check; every path written passes the path checks of checkpoint_paths.ts.

import { join } from "../platform/paths.ts";
import { gitText, initShadowRepo, type ShadowRepo } from "./shadow_git.ts";
import { BlobKeeper } from "./blob_keeper.ts";
import { type CheckpointAccess, linkOnTheWay, refusedPath, safeName } from "./checkpoint_paths.ts";
import { ABSENT, type FileState, isContent, UNKNOWN } from "./file_state.ts";

/** How a workspace's shadow repository is opened. */
export interface ShadowStoreOptions {
  /** The git program. */
  git: string;
  /** The workspace (its real path). */
  workspace: string;
  /** The shadow repository's git folder (in harness's data folder, never in the project). */
  gitDir: string;
  /** Names this process's files and ref in the repository. */
  owner: string;
  /** Files larger than this are not recorded (bytes). */
  maxFileBytes: number;
  /** What the session may read and write. */
  access: CheckpointAccess;
}

/** What a write of states did, path by path. */
export interface WriteOutcome {
  written: string[];
  removed: string[];
  /** Paths left as they are, and why. */
  refused: { path: string; why: string }[];
}

/** The shadow repository of one workspace, for one process. */
export class ShadowStore {
  readonly repo: ShadowRepo;
  readonly options: ShadowStoreOptions;
  /** Keeps the blobs of ended turns reachable under this owner's ref. */
  readonly keeper: BlobKeeper;
  #scratch = 0;

  private constructor(repo: ShadowRepo, options: ShadowStoreOptions, keeper: BlobKeeper) {
    this.repo = repo;
    this.options = options;
    this.keeper = keeper;
  }

  /**
   * Opens (creating when needed) the workspace's shadow repository; its config, attributes
   * and hooks folder are written anew so nothing in the data folder can make git run code.
   *
   * @param options Workspace, git folder, owner, limits and access.
   * @returns The store.
   * @throws ShadowGitError when git cannot create or read it.
   */
  static async open(options: ShadowStoreOptions): Promise<ShadowStore> {
    const repo: ShadowRepo = {
      git: options.git,
      gitDir: options.gitDir,
      workTree: options.workspace,
      indexFile: join(options.gitDir, `index-${safeName(options.owner)}`),
    };
    await initShadowRepo(repo);
    const keeper = await BlobKeeper.open(repo, `refs/harness/${safeName(options.owner)}`);
    return new ShadowStore(repo, options, keeper);
  }

  /** A file name for a throwaway index of this process. */
  scratchIndex(kind: string): string {
    return `${this.repo.indexFile}.${kind}-${++this.#scratch}`;
  }

  /**
   * The states of workspace paths now; the content of each file is hashed into the
   * repository (so a later restore can write it back).
   *
   * @param paths Checked workspace-relative paths.
   * @returns Each path's state.
   * @throws ShadowGitError when git fails as a whole (a full disk).
   */
  async read(paths: readonly string[]): Promise<Map<string, FileState>> {
    const states = new Map<string, FileState>();
    const hash: string[] = [];
    for (const path of new Set(paths)) {
      const state = this.#classify(path);
      if (state === undefined) hash.push(path);
      else states.set(path, state);
    }
    if (hash.length === 0) return states;
    let hashed: Map<string, FileState>;
    try {
      hashed = await this.#hash(hash);
    } catch (error) {
      if (hash.length === 1) throw error;
      // One file git cannot open (its permissions) must not cost the others their state.
      hashed = new Map();
      for (const path of hash) {
        const one = await this.#hash([path]).catch(() => undefined);
        const gone = lstatOrUndefined(join(this.options.workspace, path)) === undefined;
        hashed.set(path, one?.get(path) ?? (gone ? ABSENT : UNKNOWN.unreadable));
      }
    }
    for (const path of hash) states.set(path, hashed.get(path) ?? ABSENT);
    return states;
  }

  /** The state of a path that needs no hashing, or undefined for a file or link to hash. */
  #classify(path: string): FileState | undefined {
    if (refusedPath(path) !== undefined) return UNKNOWN.unreadable;
    if (linkOnTheWay(this.options.workspace, path) !== undefined) return UNKNOWN.behindLink;
    const absolute = join(this.options.workspace, path);
    if (!this.options.access.mayRead(absolute)) return UNKNOWN.unreadable;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(absolute);
    } catch {
      return ABSENT;
    }
    if (info.isDirectory) return UNKNOWN.folder;
    if (info.isFile && info.size > this.options.maxFileBytes) return UNKNOWN.oversize;
    return undefined;
  }

  /**
   * Hashes files into the repository: plain files in one `hash-object` run (their mode from
   * the executable bit, as git takes it); links, and names git's path list cannot carry (a
   * newline), through a throwaway index, where git reads them as it does for a commit.
   */
  async #hash(paths: readonly string[]): Promise<Map<string, FileState>> {
    const plain: { path: string; mode: string }[] = [];
    const other: string[] = [];
    for (const path of paths) {
      const info = lstatOrUndefined(join(this.options.workspace, path));
      if (info?.isFile && !path.includes("\n") && !path.includes("\r")) {
        plain.push({ path, mode: (info.mode ?? 0) & 0o100 ? "100755" : "100644" });
      } else {
        other.push(path);
      }
    }
    const states = other.length > 0 ? await this.#hashThroughIndex(other) : new Map();
    if (plain.length > 0) {
      const out = await gitText(this.repo, ["hash-object", "-w", "--no-filters", "--stdin-paths"], {
        stdin: plain.map(({ path }) => `${path}\n`).join(""),
      });
      const blobs = out.split("\n");
      plain.forEach(({ path, mode }, i) => states.set(path, `${mode} ${blobs[i]}`));
    }
    return states;
  }

  /** Hashes through a throwaway index (links, odd names): git handles links and modes. */
  async #hashThroughIndex(paths: readonly string[]): Promise<Map<string, FileState>> {
    const index = this.scratchIndex("read");
    try {
      await gitText(this.repo, ["update-index", "--add", "--remove", "-z", "--stdin"], {
        indexFile: index,
        stdin: nul(paths),
      });
      return parseStaged(await gitText(this.repo, ["ls-files", "-s", "-z"], { indexFile: index }));
    } finally {
      removeQuietly(index);
    }
  }

  /**
   * Writes states back: content through git (a link in the way of a file is replaced, never
   * written through), "absent" as a removal of the file or link. A path the checks refuse, a
   * folder standing where a file goes, and an unknown state are left as they are.
   *
   * @param entries Paths and the states they go back to.
   * @returns What was written, removed and refused.
   * @throws ShadowGitError when git fails.
   */
  async write(
    entries: readonly (readonly [string, FileState])[],
    options: { foldersBornSince?: number } = {},
  ): Promise<WriteOutcome> {
    const outcome: WriteOutcome = { written: [], removed: [], refused: [] };
    const contents: [string, string][] = [];
    for (const [path, state] of entries) {
      const why = this.#refusedWrite(path, state);
      if (why !== undefined) {
        outcome.refused.push({ path, why });
      } else if (state === ABSENT) {
        if (removeFileOrLink(join(this.options.workspace, path))) outcome.removed.push(path);
      } else {
        contents.push([path, state]);
      }
    }
    if (options.foldersBornSince !== undefined) {
      this.#removeNewFolders(outcome.removed, options.foldersBornSince);
    }
    if (contents.length === 0) return outcome;
    const index = this.scratchIndex("restore");
    try {
      await gitText(this.repo, ["update-index", "-z", "--index-info"], {
        indexFile: index,
        stdin: contents.map(([path, state]) => `${state}\t${path}\0`).join(""),
      });
      await gitText(this.repo, ["checkout-index", "-f", "-z", "--stdin"], {
        indexFile: index,
        stdin: nul(contents.map(([path]) => path)),
      });
    } finally {
      removeQuietly(index);
    }
    outcome.written.push(...contents.map(([path]) => path));
    return outcome;
  }

  /**
   * Removes the folders above removed files that are empty now and were made since `since`
   * (their birth time; where the file system keeps none, they stay): a turn's folders go
   * with its files, a folder the user had does not.
   */
  #removeNewFolders(removed: readonly string[], since: number): void {
    const folders = new Set<string>();
    for (const path of removed) {
      const parts = path.split("/");
      for (let i = parts.length - 1; i >= 1; i--) folders.add(parts.slice(0, i).join("/"));
    }
    // Deepest first, so a folder emptied by its child's removal is seen empty.
    for (const folder of [...folders].sort((a, b) => b.split("/").length - a.split("/").length)) {
      const absolute = join(this.options.workspace, folder);
      try {
        const info = Deno.lstatSync(absolute);
        const born = info.birthtime?.getTime();
        if (!info.isDirectory || born === undefined || born < since) continue;
        if (!this.options.access.mayWrite(absolute)) continue;
        Deno.removeSync(absolute); // fails unless empty
      } catch { /* not empty, or gone */ }
    }
  }

  /** Why a path may not be written back (whatever the record that names it says). */
  #refusedWrite(path: string, state: FileState): string | undefined {
    const refused = refusedPath(path);
    if (refused !== undefined) return `refused: ${refused}`;
    const link = linkOnTheWay(this.options.workspace, path);
    if (link !== undefined) return `"${link}" is not a folder any more (a link or a file)`;
    const absolute = join(this.options.workspace, path);
    if (!this.options.access.mayWrite(absolute)) return "this session may not write it";
    if (state !== ABSENT && !isContent(state)) return "its earlier state is not known";
    try {
      if (Deno.lstatSync(absolute).isDirectory) return "a folder stands there now";
    } catch { /* absent: fine */ }
    return undefined;
  }

  /**
   * The states of paths in a snapshot of the whole workspace (records of an older harness):
   * content where the snapshot has the path, else undefined.
   *
   * @param commit The snapshot.
   * @param paths Workspace-relative paths.
   * @returns The states found.
   */
  async snapshotStates(commit: string, paths: readonly string[]): Promise<Map<string, FileState>> {
    const states = new Map<string, FileState>();
    if (paths.length === 0) return states;
    const out = await gitText(this.repo, ["ls-tree", "-r", "-z", "--full-tree", commit]);
    const wanted = new Set(paths);
    for (const entry of out.split("\0")) {
      const tab = entry.indexOf("\t");
      if (tab < 0) continue;
      const path = entry.slice(tab + 1);
      const [mode, type, blob] = entry.slice(0, tab).split(" ");
      if (wanted.has(path) && type === "blob") states.set(path, `${mode} ${blob}`);
    }
    return states;
  }

  /** Keeps what is waiting to be kept (the ref stays for the next process of this owner). */
  async close(): Promise<void> {
    await this.keeper.close();
  }
}

/**
 * Reads `git ls-files -s -z`: "MODE BLOB STAGE\tPATH" entries.
 *
 * @param out git's output.
 * @returns Path -> "MODE BLOB".
 *
 * @example
 * ```ts
 * import { parseStaged } from "./shadow_store.ts";
 * const sha = "3b18e512dba79e4c8300dd08aeb37f8e728b8dad";
 * const states = parseStaged(`100644 ${sha} 0\ta b.txt\0`);
 * if (states.get("a b.txt") !== `100644 ${sha}`) throw new Error();
 * ```
 */
export function parseStaged(out: string): Map<string, FileState> {
  const states = new Map<string, FileState>();
  for (const entry of out.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab < 0) continue;
    const [mode, blob] = entry.slice(0, tab).split(" ");
    states.set(entry.slice(tab + 1), `${mode} ${blob}`);
  }
  return states;
}

/** NUL-terminated paths for git's `-z --stdin`. */
export function nul(paths: Iterable<string>): string {
  return [...paths].map((path) => `${path}\0`).join("");
}

/** Removes a file or a link (never following it); false when nothing was there. */
function removeFileOrLink(path: string): boolean {
  try {
    Deno.removeSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

function lstatOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Removes a file harness made, if it is there. */
export function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch { /* never written, or gone */ }
}
