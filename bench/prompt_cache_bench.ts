// Benchmark: the prompt tokens a model server processes over a multi-turn session, against
// the conversation's own size. The real CLI's REPL runs a scripted session (24 user messages,
// each asking about a generated ~800-line module that is too long to fit comfortably, so the
// read_file curator runs) against the fake llama-server, which keeps its previous request and
// reuses the prefix the next one shares with it. Printed per window: prompt tokens processed
// over the conversation's tokens (every message it held, each counted once: 1.00x means every
// prompt token was processed once), over the final prompt, the curator's side requests, the
// steps that made room and the refusals; this checkout with and without the curator, and with
// --before REF the same session on that version (e.g. main) in the same run.
// Run: deno run -A --unstable-worker-options bench/prompt_cache_bench.ts [--before main]

import { parseArgs } from "node:util";
import {
  runScriptedSession,
  type SessionResult,
  sourceFile,
  sum,
  versionsToRun,
} from "./scripted_session.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { before: { type: "string" }, turns: { type: "string", default: "24" } },
});
const turns = Number(values.turns);
const MODULES = 8;
const FUNCTIONS = 80;
const files: Record<string, string> = {};
for (let m = 0; m < MODULES; m++) files[`src/mod${m}.ts`] = sourceFile(m, FUNCTIONS);
const messages = Array.from(
  { length: turns },
  (_, i) =>
    `Look at src/mod${i % MODULES}.ts: what does f${i % MODULES}_${(i * 7) % FUNCTIONS} do?`,
);

const CONFIGS = [
  { label: "32k window, 2 chars/token", window: 32768, charsPerToken: 2 },
  { label: "16k window, 4 chars/token", window: 16384, charsPerToken: 4 },
];

const { versions, remove } = await versionsToRun(values.before);

function row(name: string, r: SessionResult): string {
  const ok = r.counts.filter((c) => !c.refused);
  const processed = sum(ok.map((c) => c.processed));
  const reused = sum(ok.map((c) => c.reused));
  const curator = r.counts.filter((c, i) => r.kinds[i] === "curator" && !c.refused);
  const summaries = r.kinds.filter((k) => k === "summary").length;
  const refused = r.counts.filter((c) => c.refused).length;
  const cells = [
    name.padEnd(20),
    String(r.counts.length).padStart(5),
    String(processed).padStart(9),
    String(reused).padStart(9),
    String(r.conversationTokens).padStart(8),
    String(r.finalPrompt).padStart(6),
    `${(processed / r.conversationTokens).toFixed(2)}x`.padStart(8),
    `${(processed / r.finalPrompt).toFixed(2)}x`.padStart(8),
    `${curator.length}/${sum(curator.map((c) => c.processed))}`.padStart(11),
    String(r.breaks).padStart(6),
    String(summaries).padStart(5),
    String(refused).padStart(7),
  ];
  const failed = r.exitCode === 0 ? "" : `  (exit ${r.exitCode}: ${r.stderrTail})`;
  return cells.join(" ") + failed;
}

console.log(
  `prompt tokens over a ${turns}-message session, each message reading a ${
    files["src/mod0.ts"]!.length
  }-character module (${FUNCTIONS} functions) and answering from the curated sections`,
);
const results: Record<string, Record<string, SessionResult>> = {};
for (const config of CONFIGS) {
  console.log(`\n${config.label}:`);
  console.log(
    `  ${"version".padEnd(20)} reqs processed    reused conv.tok  final proc/conv proc/final ` +
      `curator r/p  breaks summ refused`,
  );
  results[config.label] = {};
  for (const version of versions) {
    const result = await runScriptedSession({
      entry: version.entry,
      messages,
      files,
      window: config.window,
      charsPerToken: config.charsPerToken,
      flags: version.flags,
    });
    results[config.label]![version.name] = result;
    console.log(`  ${row(version.name, result)}`);
  }
}
console.log(
  "\nproc/conv: prompt tokens processed / the conversation's tokens (every message once); " +
    "goal <= 1.15x with the curator on. curator r/p: side requests / tokens they processed. " +
    "breaks: conversation requests that did not repeat the one before (a step or a summary).",
);
await remove();
