// Hands the seccomp filter (seccomp_filter.ts) to bubblewrap for commands that share the
// network. bubblewrap reads it from a file descriptor, and Deno.Command can pass only 0, 1
// and 2, so the host writes the filter once into a private folder and starts bubblewrap
// through `/bin/sh -c 'exec 3<"$0"; exec "$@"'`, which opens it as descriptor 3; bubblewrap
// reads and closes it before the command starts.

import { join } from "../../platform/paths.ts";
import { unixSocketFilter } from "./seccomp_filter.ts";

/** The filter's file, or why commands run without it. */
export type SeccompSetup = { file: string } | { reason: string };

let setup: Promise<SeccompSetup> | undefined;

const OPEN_FD_3 = 'exec 3<"$0" || exit 126; exec "$@"';

/**
 * The program and arguments that start bubblewrap (`bwrap` with `args`, which must end with
 * `--` and the command) with the filter in `file`.
 *
 * @example
 * ```ts
 * import { withSeccomp } from "./command_sandbox_seccomp.ts";
 * const launch = withSeccomp("/f.bpf", "/usr/bin/bwrap", ["--unshare-all", "--", "true"]);
 * if (launch.program !== "/bin/sh" || launch.args.join(" ").indexOf("--seccomp 3 --") < 0) {
 *   throw new Error(launch.args.join(" "));
 * }
 * ```
 */
export function withSeccomp(
  file: string,
  bwrap: string,
  args: readonly string[],
): { program: string; args: string[] } {
  const end = args.indexOf("--");
  const before = end < 0 ? [...args] : args.slice(0, end);
  const after = end < 0 ? [] : args.slice(end);
  return {
    program: "/bin/sh",
    args: ["-c", OPEN_FD_3, file, bwrap, ...before, "--seccomp", "3", ...after],
  };
}

async function writeAndCheck(bwrap: string): Promise<SeccompSetup> {
  const program = unixSocketFilter(Deno.build.arch);
  if (!program) return { reason: `no seccomp filter for ${Deno.build.arch}` };
  let folder: string;
  try {
    folder = await Deno.makeTempDir({ prefix: "harness-seccomp-" }); // 0700
    await Deno.chmod(folder, 0o700);
    const file = join(folder, "unix_sockets.bpf");
    await Deno.writeFile(file, program, { mode: 0o400 });
    globalThis.addEventListener("unload", () => {
      try {
        Deno.removeSync(folder, { recursive: true });
      } catch { /* already gone */ }
    });
    const check = withSeccomp(file, bwrap, [
      "--unshare-all",
      "--share-net",
      "--die-with-parent",
      "--ro-bind",
      "/",
      "/",
      "--",
      "true",
    ]);
    const out = await new Deno.Command(check.program, {
      args: check.args,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      clearEnv: true,
    }).output();
    if (!out.success) {
      const text = new TextDecoder().decode(out.stderr).trim().split("\n")[0] ?? "";
      return { reason: `bubblewrap refused the seccomp filter: ${text} (exit ${out.code})` };
    }
    return { file };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Writes the filter and checks that bubblewrap loads it, once per process.
 *
 * @param bwrap The bubblewrap program.
 * @returns The filter's file (kept in a 0700 folder removed when harness exits), or why
 *   there is none.
 */
export function seccompSetup(bwrap: string): Promise<SeccompSetup> {
  setup ??= writeAndCheck(bwrap);
  return setup;
}
