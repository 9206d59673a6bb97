// The usage report's text (src/ui/stats_report.ts): side requests get their own line, with
// names made safe for the terminal.

import { ok as assert } from "node:assert/strict";
import { formatUsageStats } from "../../src/ui/stats_report.ts";
import { createStyle } from "../../src/ui/style.ts";
import type { UsageStats } from "../../src/sessions/usage_stats_types.ts";

const base: UsageStats = {
  sessions: 1,
  tools: [],
  models: [],
  sideRequests: [],
  approvals: {
    approved: 0,
    denied: 0,
    changed: 0,
    medianWaitMs: null,
    p95WaitMs: null,
    ruleAllowed: 0,
    ruleDenied: 0,
  },
  stops: { loopGuard: 0, repeatedFailures: 0, iterationLimit: 0, toolCallLimit: 0, byReason: {} },
  trends: { callsPerDay: [], tokensPerSession: [] },
};

Deno.test("formatUsageStats() names side requests and their tokens on one line, only when there were some", () => {
  assert(!formatUsageStats(base, createStyle(false)).includes("Side requests"));
  const text = formatUsageStats({
    ...base,
    sideRequests: [
      { side: "read_file", requests: 2, promptTokens: 12_300, generatedTokens: 30 },
      { side: "x\u001b]0;owned\u0007", requests: 1, promptTokens: 900, generatedTokens: 80 },
    ],
  }, createStyle(false));
  const line = text.split("\n").find((l) => l.startsWith("Side requests"));
  assert(line?.includes("read_file 2 (12,300 prompt, 30 generated tokens)"), text);
  assert(!text.includes("\u001b]"), JSON.stringify(text));
});
