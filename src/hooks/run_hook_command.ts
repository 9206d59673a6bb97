// Runs one hook command: `sh -c COMMAND` in the workspace with the event's JSON on stdin, in
// its own process group, stopped (the whole group) at its timeout or when the turn is
// interrupted. A user's hook runs as the user's own script; a project's runs through the
// command sandbox's launcher, confined by the user's grants. Output is capped.

/** How the process of a hook is started. */
export type HookSpawner = (request: {
  program: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}) => Deno.ChildProcess;

/** What a hook run gave. */
export interface HookRun {
  /** The exit code; null when it was stopped or could not start. */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not start. */
  startError?: string;
}

/** Bytes kept of a hook's stdout and of its stderr. */
export const HOOK_OUTPUT_LIMIT = 256 * 1024;

/**
 * Starts a hook as the user's own process: the user's environment plus the given variables,
 * in a new process group.
 *
 * @param request Program, arguments, folder and added variables.
 * @returns The process, with piped stdin, stdout and stderr.
 */
export function spawnAsUser(request: Parameters<HookSpawner>[0]): Deno.ChildProcess {
  return new Deno.Command(request.program, {
    args: request.args,
    cwd: request.cwd,
    env: request.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    detached: Deno.build.os !== "windows",
  }).spawn();
}

/**
 * Runs a hook command and waits for it, at most `timeoutMs`.
 *
 * @param command The shell command.
 * @param options `input`: the JSON for stdin; `cwd`; `env`: variables to add; `timeoutMs`;
 *   `spawn`: how it starts; `signal`: stops it early.
 * @returns Exit code, output and whether it was stopped at its timeout.
 *
 * @example
 * ```ts
 * import { runHookCommand, spawnAsUser } from "./run_hook_command.ts";
 * if (Deno.build.os !== "windows") {
 *   const run = await runHookCommand("cat; echo oops >&2; exit 2", {
 *     input: '{"a":1}', cwd: ".", env: {}, timeoutMs: 5000, spawn: spawnAsUser,
 *   });
 *   if (run.code !== 2 || run.stdout !== '{"a":1}' || run.stderr.trim() !== "oops") throw new Error();
 * }
 * ```
 */
export async function runHookCommand(
  command: string,
  options: {
    input: string;
    cwd: string;
    env: Record<string, string>;
    timeoutMs: number;
    spawn: HookSpawner;
    signal?: AbortSignal;
  },
): Promise<HookRun> {
  const shell = Deno.build.os === "windows"
    ? { program: "cmd.exe", args: ["/d", "/s", "/c", command] }
    : { program: "sh", args: ["-c", command] };
  let child: Deno.ChildProcess;
  try {
    child = options.spawn({ ...shell, cwd: options.cwd, env: options.env });
  } catch (error) {
    return { code: null, stdout: "", stderr: "", timedOut: false, startError: describe(error) };
  }
  let timedOut = false;
  const stop = () => {
    try {
      // The whole group: a script's children (a `sleep`, a server) go with it.
      if (Deno.build.os === "windows") child.kill("SIGKILL");
      else Deno.kill(-child.pid, "SIGKILL");
    } catch {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const onAbort = () => stop();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const writing = (async () => {
      const writer = child.stdin.getWriter();
      // A hook that does not read its input must not block on a full pipe.
      await writer.write(new TextEncoder().encode(options.input)).catch(() => {});
      await writer.close().catch(() => {});
    })();
    const [stdout, stderr, status] = await Promise.all([
      readCapped(child.stdout),
      readCapped(child.stderr),
      child.status,
    ]);
    await writing;
    const stopped = timedOut || options.signal?.aborted === true;
    return { code: stopped ? null : status.code, stdout, stderr, timedOut };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** Reads a stream to its end, keeping the first HOOK_OUTPUT_LIMIT bytes. */
async function readCapped(stream: ReadableStream<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = 0;
  for await (const chunk of stream) {
    const room = HOOK_OUTPUT_LIMIT - size;
    if (room <= 0) {
      cut += chunk.length;
      continue;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    chunks.push(kept);
    size += kept.length;
    cut += chunk.length - kept.length;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  const text = new TextDecoder().decode(bytes);
  return cut > 0 ? `${text}\n[${cut} more bytes of hook output cut]` : text;
}

function describe(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "the shell was not found";
  return error instanceof Error ? error.message : String(error);
}
