// The protected set and the gate's rules, computed once at start whether or not --allow-run is
// given: `.git` of every repository in the grant (any path segment named `.git`, and the git
// folders a `.git` file points to), `.harness/` of the workspace and of each write grant,
// harness's config and cache folders and its bundle (.bundle/ of its checkout), every plugin
// folder it loads, and every place git reads
// programs from (git_programs.ts). harness's data folder is hidden whole, but for this
// workspace's saved outputs, and so is its config folder (the API key, the trust store, the
// policies), but for the user's skills and plugins. file_gate.ts enforces these rules; the
// command sandbox mounts them.

import { paths } from "../platform/paths.ts";
import { bundleFolder } from "../platform/bundle_manifest.ts";
import type { GateRules, HiddenEntry, ProtectedEntry } from "./gate_types.ts";
import { gitProgramPaths } from "./git_programs.ts";
import { entryExists } from "../platform/entry_exists.ts";

const { isAbsolute, join, relative, resolve, sep } = paths;

/** The path lists of the user's grants (sandbox/grants/grants.ts's `Grants` has this shape). */
export interface GrantPaths {
  allow: { read: true | readonly string[]; write: true | readonly string[] };
  deny: { read: true | readonly string[]; write: true | readonly string[] };
}

/** What the gate's rules are computed from. */
export interface GateInputs {
  workspace: string;
  grants: GrantPaths;
  /** Plugin folders harness loads (built-in, user, `./plugins`, `--plugins`). */
  pluginFolders: readonly string[];
  /** harness's own folders. */
  harness: { config: string; data: string; cache?: string | undefined };
  /** This workspace's saved outputs (inside `harness.data`): they stay readable. */
  outputsDir?: string;
  /** `--writable-git`: `.git` may be written (git's program paths stay protected). */
  writableGit: boolean;
  /** The user's home folder (for `~/` in git config and the global git config). */
  home?: string;
  /** The git config folder (`$XDG_CONFIG_HOME/git`), when known. */
  gitConfigDir?: string;
}

function readSmallFile(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path).trim();
  } catch {
    return undefined;
  }
}

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

function realOrSelf(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/**
 * realOrSelf remembering each answer, for one build of the rules: they ask about the same
 * few folders (the workspace above all) over and over, and a missing one throws inside
 * Deno (a dozen paths, each resolved many times, cost a -p run about a millisecond).
 */
function realPathsOnce(): (path: string) => string {
  const known = new Map<string, string>();
  return (path) => {
    let real = known.get(path);
    if (real === undefined) {
      real = realOrSelf(path);
      known.set(path, real);
    }
    return real;
  };
}

/**
 * A repository's git folders: `.git` itself and, when `.git` is a file (a linked worktree or
 * a submodule: `gitdir: PATH`), the folder it names and that folder's common folder.
 *
 * @example
 * ```ts
 * import { gitFolders } from "./protected_set.ts";
 * if (gitFolders("/no/such/.git").length !== 0) throw new Error();
 * ```
 */
export function gitFolders(dotGit: string): string[] {
  if (!entryExists(dotGit)) return [];
  const found = [dotGit];
  const pointer = readSmallFile(dotGit);
  const gitdir = pointer?.startsWith("gitdir:") ? pointer.slice(7).trim() : undefined;
  if (gitdir !== undefined && gitdir !== "") {
    const target = isAbsolute(gitdir) ? gitdir : resolve(dotGit, "..", gitdir);
    found.push(target);
    const common = readSmallFile(join(target, "commondir"));
    if (common) found.push(isAbsolute(common) ? common : resolve(target, common));
  }
  return found;
}

/** The nearest `.git` at or above `folder`, if any. */
export function enclosingGit(folder: string): string | undefined {
  for (let dir = resolve(folder);; dir = resolve(dir, "..")) {
    const candidate = join(dir, ".git");
    if (entryExists(candidate)) return candidate;
    if (resolve(dir, "..") === dir) return undefined;
  }
}

/** The repositories to protect: the workspace's (or the one it sits in) and each write root's. */
function repositories(roots: readonly string[]): string[] {
  const found = new Set<string>();
  for (const root of roots) {
    const own = join(root, ".git");
    const dotGit = entryExists(own) ? own : enclosingGit(root);
    if (dotGit !== undefined) found.add(dotGit);
  }
  return [...found];
}

/** `.git` folders and the program paths their config names. */
function gitEntries(roots: readonly string[], inputs: GateInputs): ProtectedEntry[] {
  const entries: ProtectedEntry[] = [];
  const configs: { files: string[]; workTree: string }[] = [];
  for (const dotGit of repositories(roots)) {
    const folders = gitFolders(dotGit);
    if (!inputs.writableGit) {
      for (const path of folders) entries.push({ path, kind: "git" });
    }
    configs.push({
      files: folders.flatMap((folder) => [join(folder, "config"), join(folder, "config.worktree")]),
      workTree: resolve(dotGit, ".."),
    });
  }
  // The user's own git config runs programs in every repository.
  const home = inputs.home;
  const global = [
    ...(home === undefined ? [] : [join(home, ".gitconfig")]),
    ...(inputs.gitConfigDir === undefined ? [] : [join(inputs.gitConfigDir, "config")]),
  ].filter(entryExists);
  for (const path of global) {
    entries.push({ path, kind: "git_program", source: "git's global config" });
  }
  for (const { files, workTree } of [...configs, { files: global, workTree: inputs.workspace }]) {
    const found = gitProgramPaths(files, { workTree, ...(home ? { home } : {}) });
    for (const program of found) {
      entries.push({ path: program.path, kind: "git_program", source: program.source });
    }
  }
  return entries;
}

/**
 * What commands, tools and plugins may still read of harness's config folder: the user's
 * skills (their text and scripts are for the model and its commands) and plugins (imported
 * into their workers). The rest holds secrets (`api_key`, MCP servers' tokens) or decides
 * trust (settings, hooks, policies, the trust store), and is hidden.
 */
export const CONFIG_VISIBLE: readonly string[] = ["plugins", "skills"];

/**
 * The folders of harness hidden from everyone it works for, whatever the read grant: its
 * data folder (sessions, checkpoints, every workspace's saved outputs) but for `outputsDir`,
 * and its config folder but for {@linkcode CONFIG_VISIBLE}; each under its path and, for a
 * link, where it leads. A folder that holds the workspace is left out (the user works there).
 *
 * @param harness harness's config and data folders.
 * @param options `outputsDir`: this workspace's saved outputs; `workspace`: the workspace.
 * @param realOrSelf Where a path leads (gateRules passes the answers it already has).
 * @returns The hidden entries.
 *
 * @example
 * ```ts
 * import { harnessHiddenFolders } from "./protected_set.ts";
 * const hidden = harnessHiddenFolders({ config: "/h/.config/harness", data: "/h/.local/share/harness" });
 * const config = hidden.find((e) => e.path === "/h/.config/harness");
 * if (!config?.except.includes("/h/.config/harness/skills")) throw new Error();
 * ```
 */
export function harnessHiddenFolders(
  harness: { config: string; data: string },
  options: { outputsDir?: string | undefined; workspace?: string } = {},
  realOrSelf: (path: string) => string = realPathsOnce(),
): HiddenEntry[] {
  const { workspace } = options;
  const holdsWorkspace = (path: string) =>
    workspace !== undefined &&
    (isInside(path, workspace) || isInside(realOrSelf(path), realOrSelf(workspace)));
  const spellings = (paths: readonly string[]) => [
    ...new Set(paths.flatMap((path) => [resolve(path), realOrSelf(path)])),
  ];
  const outputs = options.outputsDir === undefined ? [] : [options.outputsDir];
  const folders: [HiddenEntry["kind"], string, string[]][] = [
    ["data", harness.data, outputs],
    ["config", harness.config, CONFIG_VISIBLE.map((name) => join(harness.config, name))],
  ];
  return folders.filter(([, path]) => !holdsWorkspace(path)).flatMap(([kind, path, visible]) => {
    const except = spellings(visible);
    return spellings([path]).map((spelling) => ({ path: spelling, kind, except }));
  });
}

/**
 * The gate's rules for a run: the grants' path lists, the protected set and harness's hidden
 * folders (harnessHiddenFolders). A protected or hidden folder that holds the workspace is left out: the user works in
 * there on purpose (harness started in its own config folder).
 *
 * @param inputs The workspace, grants, plugin and harness folders and `--writable-git`.
 * @returns Rules for `FileGate.open`.
 *
 * @example
 * ```ts
 * import { gateRules } from "./protected_set.ts";
 * const rules = gateRules({
 *   workspace: "/w",
 *   grants: { allow: { read: ["/w"], write: ["/w"] }, deny: { read: [], write: [] } },
 *   pluginFolders: ["/w/plugins"],
 *   harness: { config: "/h/.config/harness", data: "/h/.local/share/harness" },
 *   writableGit: false,
 * });
 * const kinds = rules.protected.map((e) => `${e.kind}:${e.path}`).join(" ");
 * if (!kinds.includes("project:/w/.harness") || !kinds.includes("plugins:/w/plugins")) throw new Error(kinds);
 * if (rules.protectedNames.join() !== ".git" || rules.hidden[0]?.path !== "/h/.local/share/harness") throw new Error();
 * ```
 */
export function gateRules(inputs: GateInputs): GateRules {
  const { grants, workspace } = inputs;
  const writeRoots = grants.allow.write === true ? [] : [...grants.allow.write];
  const roots = [...new Set([workspace, ...writeRoots])];
  const entries: ProtectedEntry[] = [
    ...roots.map((root): ProtectedEntry => ({ path: join(root, ".harness"), kind: "project" })),
    ...gitEntries(roots, inputs),
    ...inputs.pluginFolders.map((path): ProtectedEntry => ({ path, kind: "plugins" })),
    { path: inputs.harness.config, kind: "harness" },
    ...(inputs.harness.cache ? [{ path: inputs.harness.cache, kind: "harness" as const }] : []),
    // harness's bundle of its own code (main.ts runs it): only its build writes there.
    { path: resolve(bundleFolder()), kind: "harness" },
  ];
  const realOrSelf = realPathsOnce();
  const holdsWorkspace = (path: string) =>
    isInside(path, workspace) || isInside(realOrSelf(path), realOrSelf(workspace));
  const seen = new Set<string>();
  const kept: ProtectedEntry[] = [];
  for (const entry of entries) {
    if (holdsWorkspace(entry.path)) continue;
    // Links resolved as well: a protected name that is a link protects where it leads.
    for (const path of new Set([resolve(entry.path), realOrSelf(entry.path)])) {
      if (seen.has(path)) continue;
      seen.add(path);
      kept.push({ ...entry, path });
    }
  }
  const hidden = harnessHiddenFolders(inputs.harness, {
    outputsDir: inputs.outputsDir,
    workspace,
  }, realOrSelf);
  const list = (grant: true | readonly string[]) => grant === true ? true as const : [...grant];
  return {
    read: list(grants.allow.read),
    write: list(grants.allow.write),
    denyRead: list(grants.deny.read),
    denyWrite: list(grants.deny.write),
    protected: kept,
    protectedNames: inputs.writableGit ? [] : [".git"],
    hidden,
  };
}

/**
 * The rules of a gate for reading before the run's gate is built (the banner's instruction
 * files, Tab completion while the workspace opens): the read grant, `--deny-read` and
 * harness's hidden folders. No write is allowed, so the protected set plays no part.
 *
 * @param grants The run's grants.
 * @param harness harness's config and data folders.
 * @returns Rules for `FileGate.open`.
 *
 * @example
 * ```ts
 * import { readingRules } from "./protected_set.ts";
 * const rules = readingRules(
 *   { allow: { read: ["/w"], write: ["/w"] }, deny: { read: ["/w/.env"], write: [] } },
 *   { config: "/h/.config/harness", data: "/h/.local/share/harness" },
 * );
 * if (rules.write !== true && rules.write.length !== 0) throw new Error();
 * if (rules.hidden.length !== 2) throw new Error();
 * ```
 */
export function readingRules(
  grants: GrantPaths,
  harness: { config: string; data: string },
): GateRules {
  const list = (grant: true | readonly string[]) => grant === true ? true as const : [...grant];
  return {
    read: list(grants.allow.read),
    write: [],
    denyRead: list(grants.deny.read),
    denyWrite: [],
    protected: [],
    protectedNames: [],
    hidden: harnessHiddenFolders(harness),
  };
}
