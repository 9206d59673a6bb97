// Runs one hook command: `sh -c COMMAND` in the workspace with the event's JSON on stdin, in
// its own process group, stopped (the whole group, and on Linux every process it started, even
// one that left the group with setsid) at its timeout or when the turn is interrupted. A
// process that outlives the hook cannot hold the turn: harness stops reading its pipes at the
// timeout, or shortly after the hook's own process exits. A user's hook runs as the user's own
// script; a project's runs through the command sandbox's launcher, confined by the user's
// grants. Output is capped.

import { processDescendants } from "./process_tree.ts";

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
 * How long the pipes are still read after the hook's own process exited: output it wrote is
 * already in them; a process it left running in the background (a `setsid` server) that
 * holds them open is not waited for.
 */
const DRAIN_AFTER_EXIT_MS = 500;

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
  const stop = () => stopHook(child);
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const onAbort = () => stop();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  // Closes harness's ends of the pipes: a process the hook left holding them cannot hold the turn.
  const stopReading = new AbortController();
  try {
    const writing = (async () => {
      const writer = child.stdin.getWriter();
      // A hook that does not read its input must not block on a full pipe.
      await writer.write(new TextEncoder().encode(options.input)).catch(() => {});
      await writer.close().catch(() => {});
    })();
    const output = Promise.all([
      readCapped(child.stdout, stopReading.signal),
      readCapped(child.stderr, stopReading.signal),
    ]);
    const status = await child.status;
    const stopped = timedOut || options.signal?.aborted === true;
    // After a timeout or an interrupt nothing more is read; after a normal exit, what is left
    // in the pipes for a moment.
    await firstOf(output, stopped ? 0 : DRAIN_AFTER_EXIT_MS);
    stopReading.abort();
    const [stdout, stderr] = await output;
    await firstOf(writing, 0);
    return { code: stopped ? null : status.code, stdout, stderr, timedOut };
  } finally {
    clearTimeout(timer);
    stopReading.abort();
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Stops a hook: on Linux first every process it started (found through /proc while its own
 * process still holds them, so a child that called setsid is found too), then its process
 * group, then the process itself.
 */
function stopHook(child: Deno.ChildProcess): void {
  const kill = (pid: number) => {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* already gone */ }
  };
  if (Deno.build.os === "linux") { for (const pid of processDescendants(child.pid)) kill(pid); }
  try {
    // The whole group: a script's children (a `sleep`, a server) go with it.
    if (Deno.build.os === "windows") child.kill("SIGKILL");
    else Deno.kill(-child.pid, "SIGKILL");
  } catch {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
}

/** Waits for `work`, at most `ms` milliseconds (0: only what is already settled). */
async function firstOf(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    work.then(() => {}, () => {}),
    new Promise<void>((done) => timer = setTimeout(done, ms)),
  ]);
  clearTimeout(timer);
}

/**
 * Reads a stream to its end, or until `stop` (the reader is cancelled, which closes harness's
 * end of the pipe), keeping the first HOOK_OUTPUT_LIMIT bytes.
 */
async function readCapped(
  stream: ReadableStream<Uint8Array>,
  stop: AbortSignal,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = 0;
  const reader = stream.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  stop.addEventListener("abort", cancel, { once: true });
  try {
    while (true) {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) break;
      const chunk = next.value;
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
  } finally {
    stop.removeEventListener("abort", cancel);
    if (stop.aborted) cancel();
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
