// `harness stats [--since WHEN] [--json]`: usage analytics from the session log without a
// model. The numbers come from sessions/usage_stats.ts, the text report from
// ui/stats_report.ts; --json prints the same numbers as one object.

import type { Command } from "../args.ts";
import { type AgentError, err, formatAgentError, ok, type Result } from "../../errors.ts";
import { EXIT } from "../../app/exit_codes.ts";
import type { CommandIO } from "../command_io.ts";
import { openSessionStore } from "../../sessions/open_session_store.ts";
import { createStyle, wantsColor } from "../../ui/style.ts";
import { formatUsageStats } from "../../ui/stats_report.ts";
import type { Style } from "../../ui/style.ts";
import type { SessionStore } from "../../sessions/session_store_types.ts";
import { jsonTerminalSafe } from "../../platform/terminal_text.ts";

const UNITS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/**
 * The start of a --since window as an ISO time: an age (`7d`, `12h`, `2w`), a local date
 * (`2026-05-01`, from its midnight) or a date and time (`2026-05-01T09:30`, ISO 8601).
 *
 * @param text The flag's value.
 * @param now The current time.
 * @returns The ISO time, or a usage error naming the value and the forms it may take.
 *
 * @example
 * ```ts
 * import { parseSince } from "./stats_command.ts";
 * const now = new Date("2026-05-10T12:00:00Z");
 * const week = parseSince("7d", now);
 * if (!week.ok || week.value !== "2026-05-03T12:00:00.000Z") throw new Error();
 * if (parseSince("last tuesday", now).ok) throw new Error();
 * ```
 */
export function parseSince(text: string, now: Date): Result<string, AgentError> {
  const age = /^(\d{1,5})([hdw])$/.exec(text.trim());
  if (age) return ok(new Date(now.getTime() - Number(age[1]) * UNITS[age[2]!]!).toISOString());
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  const parsed = day
    ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3]))
    : /^\d{4}-\d{2}-\d{2}T/.test(text.trim())
    ? new Date(text.trim())
    : new Date(Number.NaN);
  if (Number.isNaN(parsed.getTime())) {
    return err({
      kind: "usage",
      message: `Invalid value for --since "${text}": expected a date (2026-05-01), a date and ` +
        `time (2026-05-01T09:30) or an age (12h, 7d, 2w)`,
    });
  }
  return ok(parsed.toISOString());
}

/**
 * Prints usage statistics; returns the exit code.
 *
 * @param command The parsed `harness stats` command.
 * @param io Error printing.
 * @returns 0, 2 for a bad --since, 1 when the session database cannot be read.
 */
export function runStatsCommand(
  command: Extract<Command, { kind: "stats" }>,
  io: CommandIO,
): number {
  let since: string | undefined;
  if (command.since !== undefined) {
    const parsed = parseSince(command.since, new Date());
    if (!parsed.ok) {
      io.printError(formatAgentError(parsed.error));
      return EXIT.usage;
    }
    since = parsed.value;
  }
  const opened = openSessionStore();
  if (!opened.ok) {
    io.printError(formatAgentError(opened.error));
    return EXIT.runtime;
  }
  const store = opened.value;
  try {
    const stats = store.usageStats(since === undefined ? {} : { since });
    if (!stats.ok) {
      io.printError(formatAgentError(stats.error));
      return EXIT.runtime;
    }
    if (command.json) {
      console.log(jsonTerminalSafe(JSON.stringify(stats.value)));
    } else {
      const color = wantsColor(Deno.stdout.isTerminal(), (name) => Deno.env.get(name));
      console.log(formatUsageStats(stats.value, createStyle(color)));
    }
    return EXIT.ok;
  } finally {
    store.close();
  }
}

/**
 * The REPL's /stats: the usage report of the session in progress.
 *
 * @param store The run's session store.
 * @param sessionId The current session, or null with --no-session.
 * @param style The REPL's colours.
 * @returns The report, or one line saying why there is none.
 */
export function sessionStatsText(
  store: SessionStore,
  sessionId: string | null,
  style: Style,
): string {
  if (sessionId === null) return "Sessions are off (--no-session): nothing was recorded to count";
  const stats = store.usageStats({ sessionId });
  return stats.ok ? formatUsageStats(stats.value, style) : formatAgentError(stats.error);
}
