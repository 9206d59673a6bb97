// Start-up phase trace: with HARNESS_TRACE_STARTUP=1, each phase prints one line to stderr,
// `startup <ms> <phase>`, for bench/startup.ts. The clock is performance.now(), which starts
// when the JavaScript runtime does (an empty script runs at about 2 ms on it, some 17 ms after
// the process was spawned), so compare lines with each other. Off, it costs one check.

let enabled: boolean | undefined;

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
  const line = `startup ${performance.now().toFixed(1).padStart(7)} ms  ${phase}\n`;
  Deno.stderr.writeSync(new TextEncoder().encode(line));
}
