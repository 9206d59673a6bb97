// How the release smoke test starts harness: the command it was given (a compiled binary, or
// `deno run ... main.ts`) with paths made absolute, in a workspace folder of its own with a
// private HOME and XDG folders, a clean set of harness variables and a time limit per run.

import { isAbsolute, join, resolve } from "node:path";

/** What one run of harness printed, how it ended and how long it took. */
export interface HarnessRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/** A workspace and home folder pair that runs of harness share. */
export interface SmokeFolder {
  /** The working directory (the workspace), a real path. */
  cwd: string;
  /** HOME, with the XDG folders under it. */
  home: string;
}

/** Options of one {@linkcode SmokeHarness.run}. */
export interface RunOptions {
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Kill the run after this many milliseconds (default 120000). */
  timeoutMs?: number;
}

/** Starts the harness command under test. */
export interface SmokeHarness {
  /** The command, with its file arguments made absolute. */
  readonly command: readonly string[];
  /** The compiled binary, when the command is one file; undefined for `deno run`. */
  readonly binary: string | undefined;
  run(folder: SmokeFolder, args: readonly string[], options?: RunOptions): Promise<HarnessRun>;
}

/** Variables that would change what harness does (its own settings, keys, folders). */
const DROPPED = /^(HARNESS_.*|OPENAI_API_KEY|ANTHROPIC_API_KEY|XDG_.*|NO_COLOR)$/i;

/**
 * Makes file arguments absolute so the command still works from another working directory:
 * an argument that names an existing file and holds a path separator or a script extension.
 *
 * @param command The command as given (e.g. `["deno", "run", "-A", "main.ts"]`).
 * @param cwd The folder relative paths are relative to.
 * @returns The command with absolute paths.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { absoluteCommand } from "./smoke_harness.ts";
 * const cwd = await Deno.makeTempDir();
 * await Deno.mkdir(join(cwd, "app"));
 * await Deno.writeTextFile(join(cwd, "app", "main.ts"), "");
 * const command = absoluteCommand(["deno", "run", "-A", "app/main.ts", "missing.ts"], cwd);
 * if (command.join(" ") !== `deno run -A ${join(cwd, "app", "main.ts")} missing.ts`) {
 *   throw new Error(command.join(" "));
 * }
 * await Deno.remove(cwd, { recursive: true });
 * ```
 */
export function absoluteCommand(command: readonly string[], cwd: string): string[] {
  return command.map((arg) => {
    if (arg.startsWith("-") || isAbsolute(arg)) return arg;
    if (!/[\\/]/.test(arg) && !/\.(ts|js|mts|mjs)$/.test(arg)) return arg;
    const path = resolve(cwd, arg);
    try {
      return Deno.statSync(path).isFile ? path : arg;
    } catch {
      return arg;
    }
  });
}

/** The environment of every run: this one minus harness's own variables, plus the folders. */
function runEnvironment(folder: SmokeFolder, denoDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(Deno.env.toObject())) {
    if (!DROPPED.test(name)) env[name] = value;
  }
  return {
    ...env,
    HOME: folder.home,
    XDG_CONFIG_HOME: join(folder.home, ".config"),
    XDG_DATA_HOME: join(folder.home, ".local", "share"),
    XDG_CACHE_HOME: join(folder.home, ".cache"),
    NO_COLOR: "1",
    // `deno run` would otherwise fetch every dependency again into the private HOME.
    DENO_DIR: denoDir,
  };
}

/** Deno's cache folder, from `deno info --json` of the Deno running this script. */
async function currentDenoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "null",
  }).output();
  const info: unknown = JSON.parse(new TextDecoder().decode(out.stdout));
  if (typeof info === "object" && info !== null && "denoDir" in info) {
    if (typeof info.denoDir === "string") return info.denoDir;
  }
  throw new Error("deno info --json did not name the cache folder (denoDir)");
}

/**
 * Prepares the command under test.
 *
 * @param command The command that starts harness, as given on the command line.
 * @returns A runner whose runs never inherit the user's harness configuration.
 */
export async function smokeHarness(command: readonly string[]): Promise<SmokeHarness> {
  const absolute = absoluteCommand(command, Deno.cwd());
  const [program, ...prefix] = absolute;
  if (program === undefined) throw new Error("no harness command given");
  const denoDir = await currentDenoDir();
  return {
    command: absolute,
    binary: absolute.length === 1 ? program : undefined,
    async run(folder, args, options = {}) {
      const started = performance.now();
      const child = new Deno.Command(program, {
        args: [...prefix, ...args],
        cwd: folder.cwd,
        clearEnv: true,
        env: { ...runEnvironment(folder, denoDir), ...options.env },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, options.timeoutMs ?? 120_000);
      try {
        const out = await child.output();
        const decoder = new TextDecoder();
        return {
          code: out.code,
          stdout: decoder.decode(out.stdout),
          stderr: decoder.decode(out.stderr),
          ms: performance.now() - started,
          timedOut,
        };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
