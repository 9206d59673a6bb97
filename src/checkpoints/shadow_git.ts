// Runs git on a shadow repository: its git folder lives in harness's data folder and its work
// tree is the workspace, so nothing is written into the project. git runs with a clean
// environment, no system or global config and the repository's own config only (no hooks, no
// fsmonitor, no filters), so a hostile workspace cannot make it run code.

import { join } from "../platform/paths.ts";
import { ensurePrivateDir } from "../config/folders.ts";

/** One shadow repository: where git keeps it and which folder it snapshots. */
export interface ShadowRepo {
  /** The git program. */
  git: string;
  /** The repository's git folder (in the data folder). */
  gitDir: string;
  /** The workspace. */
  workTree: string;
  /** The index this process uses (each process has its own; see command_baseline.ts). */
  indexFile: string;
}

/** What one git run gave. */
export interface GitOutput {
  code: number;
  stdout: Uint8Array;
  stderr: string;
}

/**
 * The repository's config, written whole: nothing of a user's or the system's config applies
 * (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL), and nothing here runs a program. Files are stored
 * byte for byte (no end-of-line conversion), submodules and nested repositories are never
 * entered, and nothing collects garbage behind harness's back.
 */
const CONFIG = `[core]
\trepositoryformatversion = 0
\tbare = false
\tautocrlf = false
\tsafecrlf = false
\tsymlinks = ${Deno.build.os === "windows" ? "false" : "true"}
\tfilemode = ${Deno.build.os === "windows" ? "false" : "true"}
\tfsmonitor = false
\tuntrackedCache = false
\tquotePath = false
\tlongpaths = true
[gc]
\tauto = 0
[maintenance]
\tauto = false
[submodule]
\trecurse = false
[diff]
\tignoreSubmodules = all
[status]
\tsubmoduleSummary = false
[commit]
\tgpgSign = false
[protocol]
\tallow = never
[user]
\tname = harness
\temail = harness@localhost
`;

/**
 * Attributes that override every `.gitattributes` of the workspace ($GIT_DIR/info/attributes
 * comes first): no filter driver, no end-of-line or encoding conversion, no ident expansion.
 */
const ATTRIBUTES = "* -text -filter -ident -diff -merge !eol !working-tree-encoding\n";

/**
 * The environment git runs with: nothing of the user's but PATH, no config outside the
 * repository, literal pathspecs, and HOME pointing at the git folder (so no `~/.gitconfig`,
 * `~/.config/git/ignore` or attributes file is read).
 *
 * @param repo The shadow repository.
 * @param path The PATH to pass on.
 * @returns The variables for `Deno.Command` with `clearEnv`.
 *
 * @example
 * ```ts
 * import { gitEnvironment } from "./shadow_git.ts";
 * const env = gitEnvironment({ git: "git", gitDir: "/d/g", workTree: "/w", indexFile: "/d/g/i" }, "/bin");
 * if (env.GIT_CONFIG_NOSYSTEM !== "1" || env.GIT_DIR !== "/d/g" || "GIT_EXEC_PATH" in env) {
 *   throw new Error(JSON.stringify(env));
 * }
 * ```
 */
export function gitEnvironment(repo: ShadowRepo, path: string | undefined): Record<string, string> {
  const nul = Deno.build.os === "windows" ? "NUL" : "/dev/null";
  return {
    ...(path === undefined ? {} : { PATH: path }),
    HOME: repo.gitDir,
    XDG_CONFIG_HOME: repo.gitDir,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: nul,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_DIR: repo.gitDir,
    GIT_WORK_TREE: repo.workTree,
    GIT_INDEX_FILE: repo.indexFile,
    GIT_LITERAL_PATHSPECS: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_AUTHOR_NAME: "harness",
    GIT_AUTHOR_EMAIL: "harness@localhost",
    GIT_COMMITTER_NAME: "harness",
    GIT_COMMITTER_EMAIL: "harness@localhost",
    LC_ALL: "C",
  };
}

/**
 * Runs git on the shadow repository in the workspace.
 *
 * @param repo The shadow repository.
 * @param args git's arguments (a subcommand and its options).
 * @param options `stdin`: bytes or text to write; `indexFile`: another index for this run;
 *   `path`: the PATH to pass on (default this process's).
 * @returns The exit code, stdout bytes and stderr text; never throws for git's failures.
 *
 * @example
 * ```ts
 * import { runGit } from "./shadow_git.ts";
 * const dir = await Deno.makeTempDir();
 * const out = await runGit(
 *   { git: "git", gitDir: `${dir}/g`, workTree: dir, indexFile: `${dir}/i` },
 *   ["--version"],
 * ).catch(() => undefined); // no git on this machine
 * if (out && !new TextDecoder().decode(out.stdout).startsWith("git version")) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function runGit(
  repo: ShadowRepo,
  args: readonly string[],
  options: { stdin?: Uint8Array | string; indexFile?: string; path?: string } = {},
): Promise<GitOutput> {
  const env = gitEnvironment(
    options.indexFile ? { ...repo, indexFile: options.indexFile } : repo,
    options.path ?? Deno.env.get("PATH"),
  );
  let child: Deno.ChildProcess;
  try {
    child = spawnGit(repo, args, env, options.stdin !== undefined);
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound
      ? "was not found: install git to have /undo and /rewind"
      : `cannot start: ${(error as Error).message}`;
    throw new ShadowGitError(`git ("${repo.git}") ${why}`);
  }
  if (options.stdin !== undefined) {
    const bytes = typeof options.stdin === "string"
      ? new TextEncoder().encode(options.stdin)
      : options.stdin;
    const writer = child.stdin.getWriter();
    await writer.write(bytes).catch(() => {});
    await writer.close().catch(() => {});
  }
  const out = await child.output();
  return { code: out.code, stdout: out.stdout, stderr: new TextDecoder().decode(out.stderr) };
}

function spawnGit(
  repo: ShadowRepo,
  args: readonly string[],
  env: Record<string, string>,
  input: boolean,
): Deno.ChildProcess {
  return new Deno.Command(repo.git, {
    // core.hooksPath stays unset (no config sets it): hooks would come from the git folder's
    // own hooks folder, which initShadowRepo keeps empty, and the commands used run none.
    args: ["-c", "core.fsmonitor=false", ...args],
    cwd: repo.workTree,
    env,
    clearEnv: true,
    stdin: input ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/**
 * Runs git and returns its stdout as text, or throws `ShadowGitError` with git's message.
 *
 * @param repo The shadow repository.
 * @param args git's arguments.
 * @param options As for {@linkcode runGit}.
 * @returns stdout, decoded as UTF-8.
 */
export async function gitText(
  repo: ShadowRepo,
  args: readonly string[],
  options: { stdin?: Uint8Array | string; indexFile?: string } = {},
): Promise<string> {
  const out = await runGit(repo, args, options);
  if (out.code !== 0) {
    throw new ShadowGitError(`git ${args[0]} failed (exit ${out.code}): ${firstLine(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/**
 * Runs git and waits for it without giving up the thread (at exit, where nothing async runs
 * to its end); no stdin. Returns stdout as text, or throws `ShadowGitError`.
 *
 * @param repo The shadow repository.
 * @param args git's arguments.
 * @param options `indexFile`: another index for this run.
 * @returns stdout, decoded as UTF-8.
 */
export function gitTextSync(
  repo: ShadowRepo,
  args: readonly string[],
  options: { indexFile?: string } = {},
): string {
  const env = gitEnvironment(
    options.indexFile ? { ...repo, indexFile: options.indexFile } : repo,
    Deno.env.get("PATH"),
  );
  const out = new Deno.Command(repo.git, {
    args: ["-c", "core.fsmonitor=false", ...args],
    cwd: repo.workTree,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (out.code !== 0) {
    const stderr = new TextDecoder().decode(out.stderr);
    throw new ShadowGitError(`git ${args[0]} failed (exit ${out.code}): ${firstLine(stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** A git run that failed; the checkpoint store turns it into a note for the user. */
export class ShadowGitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ShadowGitError";
  }
}

function firstLine(text: string): string {
  return text.split("\n").find((line) => line.trim() !== "")?.trim() ?? "no error output";
}

/**
 * Creates the shadow repository when its git folder does not exist yet (owner-only), and
 * (re)writes its config, attributes and empty hooks folder every time, so a file changed in
 * the data folder cannot turn a program on.
 *
 * @param repo The shadow repository.
 * @throws ShadowGitError when git cannot create it.
 */
export async function initShadowRepo(repo: ShadowRepo): Promise<void> {
  let exists = false;
  try {
    exists = Deno.statSync(join(repo.gitDir, "objects")).isDirectory;
  } catch { /* a new repository */ }
  ensurePrivateDir(repo.gitDir);
  if (!exists) await initOnce(repo);
  // Renamed into place: another session's git run never reads a half-written config.
  writeWhole(join(repo.gitDir, "config"), CONFIG);
  ensurePrivateDir(join(repo.gitDir, "info"));
  writeWhole(join(repo.gitDir, "info", "attributes"), ATTRIBUTES);
  const hooks = join(repo.gitDir, "hooks");
  try {
    Deno.removeSync(hooks, { recursive: true });
  } catch { /* absent */ }
  ensurePrivateDir(hooks);
}

/**
 * `git init` with an empty template (no sample hooks, no description file). Sessions starting
 * in a new workspace at once all init it: one that meets another's lock on the config tries
 * again after a random pause (init is safe on an existing repository) until a deadline. A
 * fixed count of six tries lost to eleven others under load.
 */
async function initOnce(repo: ShadowRepo): Promise<void> {
  const args = ["init", "--quiet", "--template=", "--initial-branch=main"];
  const deadline = performance.now() + INIT_DEADLINE_MS;
  for (let attempt = 0;; attempt++) {
    const out = await runGit(repo, args);
    if (out.code === 0) return;
    if (performance.now() > deadline || !/lock/i.test(out.stderr)) {
      throw new ShadowGitError(`git init failed (exit ${out.code}): ${firstLine(out.stderr)}`);
    }
    const pause = Math.min(20 * 2 ** attempt, 200) * (0.5 + Math.random());
    await new Promise((done) => setTimeout(done, pause));
  }
}

/** How long a session keeps trying to init a repository other sessions are initialising. */
const INIT_DEADLINE_MS = 15_000;

/** Writes a file of the shadow repository whole: a temporary file renamed over it. */
function writeWhole(path: string, text: string): void {
  const temporary = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  Deno.writeTextFileSync(temporary, text);
  Deno.renameSync(temporary, path);
}
