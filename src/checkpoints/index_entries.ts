// The entries of a git index held in memory: path -> state, with the paths sorted so the
// files under a folder are found without asking git (a `git ls-files` run reads the whole
// index each time, which on a large tree costs more than the rest of a command's checkpoint);
// and taking paths into the index, where each file is hashed or its entry dropped.

import { join } from "../platform/paths.ts";
import { gitText, type ShadowRepo } from "./shadow_git.ts";
import { nul, parseStaged, type ShadowStore } from "./shadow_store.ts";
import type { FileState } from "./file_state.ts";
import { isFolder } from "./file_times.ts";

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

/**
 * Takes paths into a store's index (the baseline): a readable file or link within the size
 * limit is hashed; anything else (gone, a folder now, behind a link, too large, unreadable)
 * has its entry dropped.
 *
 * @param store The store (its index, workspace, limits and access).
 * @param paths Workspace-relative paths.
 * @param listed git's tags for them ("R": gone).
 * @throws ShadowGitError when git fails.
 */
export async function updateIndex(
  store: ShadowStore,
  paths: readonly string[],
  listed: ReadonlyMap<string, string>,
): Promise<void> {
  const add: string[] = [];
  const drop: string[] = [];
  for (const path of paths) (indexTakes(store, path, listed.get(path)) ? add : drop).push(path);
  if (drop.length > 0) {
    await gitText(store.repo, ["update-index", "--force-remove", "-z", "--stdin"], {
      stdin: nul(drop),
    });
  }
  if (add.length > 0) {
    await gitText(store.repo, ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], {
      stdin: nul(add),
    });
  }
}

/** Whether the index holds this path's content (else its entry is dropped). */
function indexTakes(store: ShadowStore, path: string, tag: string | undefined): boolean {
  if (tag === "R") return false;
  const { options } = store;
  const absolute = join(options.workspace, path);
  if (!options.access.mayRead(absolute)) return false;
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    if (!isFolder(join(options.workspace, ...parts.slice(0, i)), false)) return false;
  }
  try {
    const info = Deno.lstatSync(absolute);
    if (info.isDirectory) return false;
    return !info.isFile || info.size <= options.maxFileBytes;
  } catch {
    return false;
  }
}
