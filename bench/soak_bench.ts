// Soak benchmark: 300 user messages in one REPL session, each reading a whole file (TypeScript,
// Python and Markdown, 80 to 400 lines) against a fake llama-server that states a 32k window
// and counts 3 characters per token, as in issue 28's soak. Prints the harness process's peak
// and last resident memory (goal: at most 250 MB), the time harness takes around each read
// (from the reply that calls read_file to its next request; goal under 20 ms, --no-curator in
// the same run as the reference), the refused requests (goal: none after the first), the steps
// and summaries, and prompt tokens processed over the conversation's tokens.
// Run: deno run -A --unstable-worker-options bench/soak_bench.ts [--turns 300] [--before main]

import { parseArgs } from "node:util";
import {
  quantile,
  runScriptedSession,
  type SessionResult,
  sourceFile,
  sum,
  versionsToRun,
} from "./scripted_session.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { before: { type: "string" }, turns: { type: "string", default: "300" } },
});
const turns = Number(values.turns);

function pythonFile(module: number, functions: number): string {
  const out = [`"""Module ${module}: generated for the benchmark."""`, ""];
  for (let f = 0; f < functions; f++) {
    out.push(
      `def f${module}_${f}(value):`,
      `    """Adds ${f} to the value of module ${module}."""`,
      `    offset = ${f} + ${module}`,
      `    if value is None:`,
      `        raise ValueError("f${module}_${f}: no value")`,
      `    return value + offset`,
      "",
    );
  }
  return out.join("\n");
}

function markdownFile(note: number, paragraphs: number): string {
  const out = [`# Note ${note}`, ""];
  for (let p = 0; p < paragraphs; p++) {
    out.push(
      `## Part ${p}`,
      "",
      `This part of note ${note} describes step ${p} of the process in plain words, so that`,
      `a reader can follow it without the code: what goes in, what comes out, and why.`,
      "",
    );
  }
  return out.join("\n");
}

const files: Record<string, string> = {};
const paths: string[] = [];
for (let i = 0; i < 10; i++) {
  const ts = `src/mod${i}.ts`;
  const py = `lib/mod${i}.py`;
  const md = `notes/n${i}.md`;
  files[ts] = sourceFile(i, 8 + i * 4);
  files[py] = pythonFile(i, 12 + i * 6);
  files[md] = markdownFile(i, 16 + i * 8);
  paths.push(ts, py, md);
}
const messages = Array.from(
  { length: turns },
  (_, i) => `Read ${paths[i % paths.length]} and tell me what it holds (${i + 1}).`,
);

const { versions, remove } = await versionsToRun(values.before);

function report(name: string, r: SessionResult): string {
  const ok = r.counts.filter((c) => !c.refused);
  const refused = r.counts.map((c, i) => c.refused ? i : -1).filter((i) => i >= 0);
  const afterFirst = refused.filter((i) => i > 0).length;
  const processed = sum(ok.map((c) => c.processed));
  const overhead = r.readOverheadMs;
  return [
    `${name}: ${r.counts.length} requests in ${(r.elapsedMs / 1000).toFixed(0)} s` +
    (r.exitCode === 0 ? "" : ` (exit ${r.exitCode}: ${r.stderrTail})`),
    `  memory: peak ${r.rssMb.peak.toFixed(0)} MB, last ${r.rssMb.last.toFixed(0)} MB; ` +
    `by tenth of the session: ${r.rssByTenth.join(" ")}`,
    `  around each read: median ${quantile(overhead, 0.5).toFixed(1)} ms, p95 ${
      quantile(overhead, 0.95).toFixed(1)
    } ms over ${overhead.length} reads`,
    `  refused ${refused.length} (after the first request: ${afterFirst}), summaries ${
      r.kinds.filter((k) => k === "summary").length
    }, curator side requests ${r.kinds.filter((k) => k === "curator").length}, breaks ${r.breaks}`,
    `  prompt tokens processed ${processed} over the conversation's ${r.conversationTokens}: ${
      (processed / r.conversationTokens).toFixed(2)
    }x`,
  ].join("\n");
}

console.log(
  `soak: ${turns} messages, each reading a whole file (${paths.length} files, ${
    Math.min(...Object.values(files).map((f) => f.split("\n").length))
  } to ${
    Math.max(...Object.values(files).map((f) => f.split("\n").length))
  } lines), 32k window, 3 chars/token`,
);
for (const version of versions) {
  const result = await runScriptedSession({
    entry: version.entry,
    messages,
    files,
    window: 32768,
    charsPerToken: 3,
    flags: version.flags,
  });
  console.log(report(version.name, result));
}
console.log("goals: peak memory <= 250 MB; around each read < 20 ms; no refusal after the first");
await remove();
