// Benchmark: what the file gate adds to a file read (issue 38). A tree of 2,000 small files six
// folders deep; each run reads every file raw, then with the gate's check first: with no entry
// recorded by identity that reads meet, then with a --deny-read entry (every read walks its
// folders' identities), and writes' checks (always a walk: .git is recorded). Medians of N
// runs, as ratios to the raw reads of the same run.
// Run: deno run -A bench/file_gate_bench.ts [--runs N]

import { join } from "node:path";
import { parseArgs } from "node:util";
import { FileGate } from "../src/gate/file_gate.ts";
import type { GateRules } from "../src/gate/gate_types.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "9" } },
});
const runs = Number(flags.runs);

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "gate_bench_" }));
const files: string[] = [];
for (let i = 0; i < 2_000; i++) {
  const dir = join(root, "src", `a${i % 5}`, `b${i % 7}`, `c${i % 3}`, `d${i % 2}`);
  Deno.mkdirSync(dir, { recursive: true });
  const file = join(dir, `f${i}.ts`);
  Deno.writeTextFileSync(file, `export const x${i} = ${i};\n`);
  files.push(file);
}
Deno.mkdirSync(join(root, ".git"));
Deno.writeTextFileSync(join(root, ".env"), "KEY=1");

const base: GateRules = {
  read: [root],
  write: [root],
  denyRead: [],
  denyWrite: [],
  protected: [{ path: join(root, "plugins"), kind: "plugins" }],
  protectedNames: [".git"],
  hidden: [{ path: join(root, "data"), kind: "data", except: [] }],
};
const plain = FileGate.open(base);
const denying = FileGate.open({ ...base, denyRead: [join(root, ".env")] });

function time(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const cases: Record<string, () => void> = {
  "raw read": () => files.forEach((f) => Deno.readTextFileSync(f)),
  "gate check + read": () => files.forEach((f) => Deno.readTextFileSync(plain.assert("read", f))),
  "gate check + read, --deny-read recorded": () =>
    files.forEach((f) => Deno.readTextFileSync(denying.assert("read", f))),
  "gate write check only": () => files.forEach((f) => plain.assert("write", f)),
};
const results: Record<string, number[]> = {};
for (let run = 0; run < runs; run++) {
  for (const [name, work] of Object.entries(cases)) (results[name] ??= []).push(time(work));
}
const reference = median(results["raw read"]!);
console.log(`file gate: ${files.length} files, median of ${runs} runs`);
for (const [name, values] of Object.entries(results)) {
  const ms = median(values);
  console.log(
    `  ${name.padEnd(42)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / reference).toFixed(2)}x raw` +
      `  (${(ms * 1000 / files.length).toFixed(1)} µs a file)`,
  );
}
await Deno.remove(root, { recursive: true });
