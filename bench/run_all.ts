// Runs every benchmark in bench/ one after another, each in its own process (so one's
// workers and caches do not disturb the next), and prints their reports as they come.
// Run: deno task bench [NAME ...]   e.g. `deno task bench startup tool_roundtrip`
// The llama.cpp benchmark runs only when vendor/llama exists (deno task install-llama).

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const BENCHES: { name: string; file: string; args: string[]; needs?: string }[] = [
  { name: "startup", file: "startup.ts", args: ["--runs", "15"] },
  { name: "tool_roundtrip", file: "tool_roundtrip.ts", args: [] },
  { name: "plugin_pins", file: "plugin_pins_bench.ts", args: [] },
  { name: "command_sandbox", file: "command_sandbox_bench.ts", args: [] },
  { name: "search", file: "search_bench.ts", args: [] },
  { name: "session", file: "session_bench.ts", args: [] },
  { name: "code_index", file: "code_index_bench.ts", args: [] },
  { name: "text_tool_calls", file: "text_tool_calls_bench.ts", args: [] },
  { name: "context", file: "context_bench.ts", args: [] },
  { name: "prompt_cache", file: "prompt_cache_bench.ts", args: ["--before", "main"] },
  { name: "parallel_calls", file: "parallel_calls_bench.ts", args: [] },
  { name: "stats", file: "stats_bench.ts", args: [] },
  { name: "search_code", file: "search_code_bench.ts", args: [] },
  { name: "checkpoint", file: "checkpoint_bench.ts", args: [] },
  { name: "undo_soak", file: "undo_soak_bench.ts", args: ["--files", "10000"] },
  { name: "file_gate", file: "file_gate_bench.ts", args: [] },
  { name: "skills", file: "skills_bench.ts", args: [] },
  { name: "jobs", file: "jobs_bench.ts", args: [] },
  { name: "diagnostics", file: "diagnostics_bench.ts", args: [] },
  { name: "llama_cpp", file: "llama_cpp_bench.ts", args: [], needs: "../vendor/llama" },
];

const wanted = new Set(Deno.args);
const unknown = [...wanted].filter((name) => !BENCHES.some((b) => b.name === name));
if (unknown.length > 0) {
  console.error(
    `error: Unknown benchmark "${unknown[0]}": choose from ${
      BENCHES.map((b) => b.name).join(", ")
    }`,
  );
  Deno.exit(2);
}

let failed = 0;
for (const bench of BENCHES) {
  if (wanted.size > 0 && !wanted.has(bench.name)) continue;
  if (bench.needs && !existsSync(fileURLToPath(new URL(bench.needs, import.meta.url)))) {
    console.log(`\n== ${bench.name}: skipped (run "deno task install-llama" first)`);
    continue;
  }
  console.log(`\n== ${bench.name}`);
  const started = performance.now();
  const status = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-prompt",
      "--unstable-worker-options",
      fileURLToPath(new URL(bench.file, import.meta.url)),
      ...bench.args,
    ],
    stdin: "null",
  }).spawn().status;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (!status.success) failed++;
  console.log(
    `== ${bench.name}: ${status.success ? "done" : `failed (exit ${status.code})`} in ${seconds} s`,
  );
}
Deno.exit(failed > 0 ? 1 : 0);
