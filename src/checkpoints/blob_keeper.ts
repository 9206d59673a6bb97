// Keeps the blobs checkpoint records name reachable from this owner's ref in the shadow
// repository: a commit whose tree names each blob by its id, on top of the last one. A turn's
// blobs are kept in batches (its end does not wait for three git runs) and at exit with
// synchronous runs; until then they sit in the repository unnamed, which is safe since
// nothing there collects garbage (gc.auto is 0) and the ref only says what is in use.

import { gitText, gitTextSync, runGit, type ShadowRepo } from "./shadow_git.ts";
import { blobOf, type FileState } from "./file_state.ts";

/** Blobs of ended turns kept together. */
const KEEP_BATCH = 256;

/** The kept blobs of one owner. */
export class BlobKeeper {
  readonly #repo: ShadowRepo;
  readonly #ref: string;
  #kept: string | undefined;
  #keeping: Promise<unknown> = Promise.resolve();
  /** Blobs waiting to be named by a kept commit: blob -> mode. */
  readonly #waiting = new Map<string, string>();
  #scratch = 0;

  private constructor(repo: ShadowRepo, ref: string, kept: string | undefined) {
    this.#repo = repo;
    this.#ref = ref;
    this.#kept = kept;
  }

  /**
   * The keeper of a ref, continuing its chain of commits.
   *
   * @param repo The shadow repository.
   * @param ref The owner's ref (`refs/harness/OWNER`).
   * @returns The keeper.
   */
  static async open(repo: ShadowRepo, ref: string): Promise<BlobKeeper> {
    const head = await runGit(repo, ["rev-parse", "--verify", "--quiet", ref]);
    const kept = head.code === 0 ? new TextDecoder().decode(head.stdout).trim() : undefined;
    return new BlobKeeper(repo, ref, kept);
  }

  /**
   * Keeps these states' blobs, and those waiting, now.
   *
   * @param states The states whose content must stay.
   * @returns The commit, or undefined when there was no content to keep.
   */
  keep(states: Iterable<FileState>): Promise<string | undefined> {
    this.keepLater(states);
    const entries = new Map(this.#waiting);
    this.#waiting.clear();
    const next = this.#keeping.then(async () => {
      if (entries.size === 0) return undefined;
      const tree = (await gitText(this.#repo, ["mktree", "-z"], {
        stdin: [...entries].map(([blob, mode]) => `${mode} blob ${blob}\t${blob}\0`).join(""),
      })).trim();
      const parent = this.#kept ? ["-p", this.#kept] : [];
      const commit = (await gitText(this.#repo, ["commit-tree", tree, ...parent, "-m", "keep"]))
        .trim();
      await gitText(this.#repo, ["update-ref", this.#ref, commit]);
      this.#kept = commit;
      return commit;
    });
    this.#keeping = next.catch(() => {});
    return next;
  }

  /**
   * Keeps these states' blobs with the next kept commit (a batch, or at the latest when the
   * keeper closes).
   *
   * @param states The states whose content must stay.
   */
  keepLater(states: Iterable<FileState>): void {
    for (const state of states) {
      const blob = blobOf(state);
      if (blob !== undefined) this.#waiting.set(blob, state.slice(0, 6));
    }
    if (this.#waiting.size >= KEEP_BATCH) void this.keep([]).catch(() => {});
  }

  /**
   * Keeps what is waiting without giving up the thread (at exit): the blobs go into a
   * throwaway index, its tree into a commit on top of the last one.
   */
  keepNow(): void {
    if (this.#waiting.size === 0) return;
    const index = `${this.#repo.indexFile}.keep-${++this.#scratch}`;
    try {
      const entries = [...this.#waiting].flatMap(([blob, mode]) => [
        "--cacheinfo",
        `${mode},${blob},k/${blob}`,
      ]);
      gitTextSync(this.#repo, ["update-index", "--add", ...entries], { indexFile: index });
      const tree = gitTextSync(this.#repo, ["write-tree"], { indexFile: index }).trim();
      const parent = this.#kept ? ["-p", this.#kept] : [];
      const commit = gitTextSync(this.#repo, ["commit-tree", tree, ...parent, "-m", "keep"])
        .trim();
      gitTextSync(this.#repo, ["update-ref", this.#ref, commit]);
      this.#kept = commit;
      this.#waiting.clear();
    } catch {
      /* unnamed blobs stay in the repository all the same */
    } finally {
      try {
        Deno.removeSync(index);
      } catch { /* never written */ }
    }
  }

  /** Keeps what is waiting, then waits for it (the ref stays for this owner). */
  async close(): Promise<void> {
    if (this.#waiting.size > 0) await this.keep([]).catch(() => {});
    await this.#keeping;
  }
}
