// Built-in tool get_current_time: the local date and time as ISO 8601 with the UTC offset,
// e.g. 2026-11-22T14:03:00+01:00.

import { z } from "zod";
import { defineTool } from "../src/tools/define_tool.ts";

function pad(n: number, width = 2): string {
  return String(Math.abs(n)).padStart(width, "0");
}

/**
 * Formats a date as local ISO 8601 with offset (no milliseconds).
 *
 * @param date The instant.
 * @returns e.g. "2026-11-22T14:03:00+01:00".
 */
function localIsoString(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? "+" : "-";
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${
    pad(date.getHours())
  }:${pad(date.getMinutes())}:${pad(date.getSeconds())}${sign}${pad(Math.trunc(offset / 60))}:${
    pad(offset % 60)
  }`;
}

export default defineTool({
  name: "get_current_time",
  description: "Get the current local date and time as ISO 8601 with the UTC offset.",
  risk: "safe",
  parameters: z.object({}),
  run() {
    const now = new Date();
    const weekday = now.toLocaleDateString("en-US", { weekday: "long" });
    const iso = localIsoString(now);
    return { output: iso, display: `${iso} (${weekday})` };
  },
});
