// In-process llama.cpp benchmark on the scripted test model: load time (file to first usable
// provider, including importing node-llama-cpp the first time), then generation speed for a
// long scripted answer, with the default thread count and with one thread.
// Run: deno task install-llama && deno run -A bench/llama_cpp_bench.ts [words]   (default 400)

import { join } from "node:path";
import { createLlamaCppProvider } from "../src/providers/llama_cpp.ts";
import { writeScriptedGguf } from "../tests/fixtures/make_scripted_gguf.ts";

const words = Number(Deno.args[0] ?? 400);
const dir = await Deno.makeTempDir({ prefix: "llama_bench_" });
const modelFile = join(dir, "scripted.gguf");
const answer = Array.from({ length: words }, (_, i) => `w${i}`).join(" ");
await writeScriptedGguf(modelFile, {
  onUser: { text: answer },
  onToolResult: { text: "Done." },
});
const size = (await Deno.stat(modelFile)).size;
console.log(`scripted model: ${(size / 1024).toFixed(0)} KiB, answer of ${words} tokens`);

for (const threads of [undefined, 1]) {
  const label = threads === undefined
    ? `threads=${navigator.hardwareConcurrency} (default)`
    : "threads=1";
  const t0 = performance.now();
  const loaded = await createLlamaCppProvider({
    modelFile,
    gpu: "off",
    ...(threads ? { threads } : {}),
  });
  if (!loaded.ok) {
    console.error(loaded.error.message);
    Deno.exit(1);
  }
  const loadMs = performance.now() - t0;
  const provider = loaded.value;
  const messages = [{ kind: "user" as const, content: "Say the words." }];
  let firstTokenMs = 0;
  const t1 = performance.now();
  const turn = await provider.complete({ messages, tools: [] }, () => {
    if (firstTokenMs === 0) firstTokenMs = performance.now() - t1;
  });
  const totalMs = performance.now() - t1;
  const generated = turn.usage?.completionTokens ?? 0;
  const perSecond = generated / ((totalMs - firstTokenMs) / 1000);
  console.log(
    `${label}: load ${loadMs.toFixed(0)} ms, first token ${firstTokenMs.toFixed(0)} ms, ` +
      `${generated} tokens in ${totalMs.toFixed(0)} ms = ${perSecond.toFixed(0)} tokens/s`,
  );
  await provider.close();
}
await Deno.remove(dir, { recursive: true });
