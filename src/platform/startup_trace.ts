// Start-up phase trace: with HARNESS_TRACE_STARTUP=1, each phase prints one line to stderr,
// `startup <ms> ms  [cpu <ms> ms  ]<phase>`, for bench/startup.ts (the CPU time the thread used,
// where the system says). The clock is performance.now(), which starts
// when the JavaScript runtime does (an empty script runs at about 2 ms on it, some 17 ms after
// the process was spawned), so compare lines with each other. Off, it costs one check.

let enabled: boolean | undefined;

/**
 * The CPU time this thread has used so far (Linux: /proc/thread-self/schedstat), as "cpu N ms
 * ": a phase's wall time minus its CPU time is time the thread waited.
 */
function cpuNote(): string {
  try {
    const nanoseconds = Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]);
    return Number.isFinite(nanoseconds)
      ? `cpu ${(nanoseconds / 1e6).toFixed(1).padStart(6)} ms  `
      : "";
  } catch {
    return ""; // not Linux, or no permission to read it
  }
}

/**
 * Marks the end of a start-up phase when HARNESS_TRACE_STARTUP=1.
 *
 * @param phase What just finished, in a few words.
 *
 * @example
 * ```ts
 * import { tracePhase } from "./startup_trace.ts";
 * tracePhase("settings loaded"); // prints only with HARNESS_TRACE_STARTUP=1
 * ```
 */
export function tracePhase(phase: string): void {
  if (enabled === undefined) {
    try {
      enabled = Deno.env.get("HARNESS_TRACE_STARTUP") === "1";
    } catch {
      enabled = false; // no env permission: no trace
    }
  }
  if (!enabled) return;
  const line = `startup ${performance.now().toFixed(1).padStart(7)} ms  ${cpuNote()}${phase}\n`;
  Deno.stderr.writeSync(new TextEncoder().encode(line));
}
