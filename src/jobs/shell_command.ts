// How a command line starts: under sh (cmd.exe on Windows) with both output streams on one
// pipe, in the workspace, with variables that make common tools skip prompts, pagers, colours
// and editors. The process itself is started by whoever runs jobs (the host, in the command
// sandbox); this file only says what to start.

/** A process to start, in the shape of the command sandbox's spawn request. */
export interface ShellRequest {
  program: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: "piped" | "null";
  stdout: "piped";
  stderr: "piped";
  windowsRawArguments?: boolean;
}

/** Variables that make common tools skip prompts, pagers, colours and editors. */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  CI: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_PAGER: "cat",
  GIT_EDITOR: "true",
  GCM_INTERACTIVE: "never",
  PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  EDITOR: "true",
  VISUAL: "true",
  DEBIAN_FRONTEND: "noninteractive",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
  CLICOLOR: "0",
  TERM: "dumb",
  PIP_NO_INPUT: "1",
  npm_config_yes: "true",
  HOMEBREW_NO_AUTO_UPDATE: "1",
};

/**
 * The process that runs `command` in `cwd`: `sh -c` with stderr joined to stdout (one pipe
 * keeps their true order; the stderr pipe still catches what the shell prints before the
 * redirection), or `cmd.exe /d /s /c` on Windows.
 *
 * @param command The command line.
 * @param options `cwd`; `stdin`: "null" closes it, "piped" keeps it open and empty (a job).
 * @returns What to start.
 *
 * @example
 * ```ts
 * import { shellRequest } from "./shell_command.ts";
 * const r = shellRequest("echo hi", { cwd: "/w", stdin: "null" });
 * if (Deno.build.os !== "windows" && r.args[1] !== "exec 2>&1; echo hi") throw new Error();
 * ```
 */
export function shellRequest(
  command: string,
  options: { cwd: string; stdin: "piped" | "null" },
): ShellRequest {
  const base = {
    cwd: options.cwd,
    env: { ...NON_INTERACTIVE_ENV },
    stdin: options.stdin,
    stdout: "piped",
    stderr: "piped",
  } as const;
  return Deno.build.os === "windows"
    ? {
      ...base,
      program: "cmd.exe",
      args: ["/d", "/s", "/c", `"${command}"`],
      windowsRawArguments: true,
    }
    : { ...base, program: "sh", args: ["-c", `exec 2>&1; ${command}`] };
}
