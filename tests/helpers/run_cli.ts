// Runs the real CLI entry point (main.ts) as a subprocess, the way the compiled binary
// runs, in a temp working directory with its own HOME and XDG folders so no user config,
// policy or session leaks in or out.

import { fileURLToPath } from "node:url";

export const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));
/** `deno` arguments that run the CLI as the compiled binary does; the CLI's own follow. */
export const RUN_MAIN: readonly string[] = [
  "run",
  "-A",
  "--no-prompt",
  "--unstable-worker-options",
  MAIN,
];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliSandbox extends AsyncDisposable {
  /** The working directory (the workspace). */
  cwd: string;
  /** HOME, with XDG_CONFIG_HOME=home/.config and XDG_DATA_HOME=home/.local/share. */
  home: string;
  env: Record<string, string>;
  run(
    args: string[],
    options?: { stdin?: string; env?: Record<string, string> },
  ): Promise<CliResult>;
  /** Starts the CLI and returns the child for tests that write stdin over time or kill it. */
  spawn(args: string[], options?: { env?: Record<string, string> }): Deno.ChildProcess;
}

let denoDir: Promise<string> | undefined;

/** The Deno cache of this test run, so subprocesses with their own HOME reuse it. */
export function currentDenoDir(): Promise<string> {
  denoDir ??= new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output()
    .then((out) => JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string);
  return denoDir;
}

/**
 * This process's environment without what a task runner adds: `deno task test` sets INIT_CWD
 * (which `deno task harness` would take for the user's folder) and npm_* variables (which an
 * npx launcher profile would pass on), so a harness started by a test sees a user's shell.
 */
export function shellEnv(): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of Object.keys(env)) {
    if (name === "INIT_CWD" || name.startsWith("npm_")) delete env[name];
  }
  return env;
}

/** Makes temp folders for one CLI test. */
export async function cliSandbox(): Promise<CliSandbox> {
  const root = await Deno.makeTempDir({ prefix: "harness_e2e_" });
  const cwd = `${root}/work`;
  const home = `${root}/home`;
  await Deno.mkdir(cwd, { recursive: true });
  await Deno.mkdir(home, { recursive: true });
  const env: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_DATA_HOME: `${home}/.local/share`,
    NO_COLOR: "1",
    DENO_DIR: await currentDenoDir(),
    HARNESS_API_KEY: "",
    OPENAI_API_KEY: "",
    ANTHROPIC_API_KEY: "",
  };
  const command = (args: string[], extraEnv: Record<string, string>, stdin: "piped" | "null") =>
    new Deno.Command(Deno.execPath(), {
      args: [...RUN_MAIN, ...args],
      cwd,
      clearEnv: true,
      env: { ...shellEnv(), ...env, ...extraEnv },
      stdin,
      stdout: "piped",
      stderr: "piped",
    });
  return {
    cwd,
    home,
    env,
    async run(args, options = {}) {
      const child = command(args, options.env ?? {}, options.stdin === undefined ? "null" : "piped")
        .spawn();
      if (options.stdin !== undefined) {
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(options.stdin));
        await writer.close();
      }
      const out = await child.output();
      const decoder = new TextDecoder();
      return {
        code: out.code,
        stdout: decoder.decode(out.stdout),
        stderr: decoder.decode(out.stderr),
      };
    },
    spawn(args, options = {}) {
      return command(args, options.env ?? {}, "piped").spawn();
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}

/** The last non-empty line of stdout parsed as JSON. */
export function lastJsonLine(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1] ?? "null");
}
