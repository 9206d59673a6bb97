import { explainDecision, formatPermissionsReport } from "../../src/permissions/explain.ts";
import { formatBanner, YES_MODE } from "../../src/cli/banner.ts";
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";
import { createStyle } from "../../src/ui/style.ts";
import type { LoadedRule } from "../../src/permissions/policy.ts";

Deno.test("explainDecision() prints each sub-command's decision and rule", () => {
  const rules: LoadedRule[] = [
    { tool: "run_command", match: { command: "git *" }, action: "allow", file: "u", index: 1 },
    { tool: "run_command", match: { command: "npm *" }, action: "ask", file: "p", index: 2 },
  ];
  const { decision, text } = explainDecision(
    { tool: "run_command", args: { command: "git log | npm test; ls -la" }, risk: "high" },
    rules,
  );
  if (decision.action !== "ask") throw new Error(text);
  const lines = text.split("\n");
  const expected = [
    /^ {2}git log +allow {2}u#1 \{"tool": "run_command".*"git \*"/,
    /^ {2}npm test +ask {4}p#2 \{"tool": "run_command".*"npm \*"/,
    /^ {2}ls -la +ask {4}no rule \(default for risk HIGH: ask\)$/,
  ];
  for (const pattern of expected) {
    if (!lines.some((line) => pattern.test(line))) throw new Error(`${pattern}\n${text}`);
  }
  if (!text.includes("decision: ask\nrule: p#2")) throw new Error(text);
});

Deno.test("explainDecision() marks the part of a command that cannot be analysed", () => {
  const { text } = explainDecision(
    { tool: "run_command", args: { command: "git status && cat <<EOF\nx\nEOF" }, risk: "high" },
    [{ tool: "run_command", match: { command: "git *" }, action: "allow", file: "u", index: 1 }],
  );
  if (!/\(not analysable\) +ask {4}no rule/.test(text)) throw new Error(text);
  if (!text.includes("note: part of this command cannot be analysed")) throw new Error(text);
});

Deno.test("formatPermissionsReport() and the banner say when --yes answers every prompt", () => {
  const asks = formatPermissionsReport({ sandbox: "Sandbox: -R", sessionApprovals: [], rules: [] });
  if (!asks.includes("everything else asks")) throw new Error(asks);
  const yes = formatPermissionsReport({
    sandbox: "Sandbox: -R",
    mode: "Approvals: --yes",
    sessionApprovals: [],
    rules: [],
  });
  if (yes.includes("asks") || !yes.includes("Approvals: --yes")) throw new Error(yes);
  const facts = { model: "m", where: "u", grants: emptyGrants(), sessionId: "s", noSession: false };
  const style = createStyle(false);
  if (formatBanner(facts, style).includes(YES_MODE)) throw new Error("banner without --yes");
  if (!formatBanner({ ...facts, yes: true }, style).includes(YES_MODE)) throw new Error("banner");
});

Deno.test("explainDecision() says when an untrusted project rule decided", () => {
  const rules: LoadedRule[] = [
    { tool: "run_command", match: { command: "rm *" }, action: "deny", file: "u", index: 1 },
    { tool: "run_command", action: "deny", file: "p", index: 1, untrusted: true },
  ];
  const { text } = explainDecision(
    { tool: "run_command", args: { command: "ls" }, risk: "high" },
    rules,
  );
  if (!text.includes('p#1 {"tool": "run_command", "action": "deny"} (untrusted file')) {
    throw new Error(text);
  }
});
