// The entries of a git index held in memory: path -> state, with the paths sorted so the
// files under a folder are found without asking git (a `git ls-files` run reads the whole
// index each time, which on a large tree costs more than the rest of a command's checkpoint).

import { gitText, type ShadowRepo } from "./shadow_git.ts";
import { parseStaged } from "./shadow_store.ts";
import type { FileState } from "./file_state.ts";

/** An index's entries, read once. */
export class IndexEntries {
  readonly #states: Map<string, FileState>;
  readonly #sorted: string[];

  constructor(states: Map<string, FileState>) {
    this.#states = states;
    this.#sorted = [...states.keys()].sort(byBytes);
  }

  /**
   * Reads the entries of a repository's index.
   *
   * @param repo The repository (its index file).
   * @returns The entries.
   * @throws ShadowGitError when git fails.
   */
  static async read(repo: ShadowRepo): Promise<IndexEntries> {
    return new IndexEntries(parseStaged(await gitText(repo, ["ls-files", "-s", "-z"])));
  }

  /** The state of a file the index holds. */
  get(path: string): FileState | undefined {
    return this.#states.get(path);
  }

  /**
   * The paths at `path` or under it (as a folder).
   *
   * @example
   * ```ts
   * import { IndexEntries } from "./index_entries.ts";
   * const s = "100644 1111111111111111111111111111111111111111";
   * const entries = new IndexEntries(new Map([["a", s], ["a/b", s], ["a-c", s], ["ab", s]]));
   * if (JSON.stringify(entries.under("a")) !== '["a","a/b"]') throw new Error();
   * ```
   */
  under(path: string): string[] {
    const found: string[] = [];
    if (this.#states.has(path)) found.push(path);
    const prefix = `${path}/`;
    let low = 0;
    let high = this.#sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (byBytes(this.#sorted[middle]!, prefix) < 0) low = middle + 1;
      else high = middle;
    }
    for (let i = low; i < this.#sorted.length && this.#sorted[i]!.startsWith(prefix); i++) {
      found.push(this.#sorted[i]!);
    }
    return found;
  }
}

function byBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
