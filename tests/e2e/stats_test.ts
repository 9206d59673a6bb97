// End-to-end tests of usage analytics: `harness -p` runs against the scripted server record
// sessions, then `harness stats` (text and --json, --since) and the REPL's /stats read them
// back through the real CLI.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

Deno.test("harness stats reports the tools and tokens of recorded runs, as text and --json", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("get_current_time", {}).usage(100, 5),
    reply().toolCall("read_file", { path: "missing.txt" }).usage(140, 6),
    reply().text("Done.").usage(180, 9),
  ]);
  const run = await sandbox.run([
    "-p",
    "what time is it",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    "--allow-read=.",
  ]);
  assertEquals(run.code, 0, run.stderr);

  const json = await sandbox.run(["stats", "--json"]);
  assertEquals(json.code, 0, json.stderr);
  const stats = lastJsonLine(json.stdout) as {
    sessions: number;
    tools: { tool: string; calls: number; successes: number; errors: Record<string, number> }[];
    models: { model: string; turns: number; promptTokens: number; generatedTokens: number }[];
  };
  assertEquals(stats.sessions, 1);
  const byName = Object.fromEntries(stats.tools.map((t) => [t.tool, t]));
  assertEquals(
    [
      byName.get_current_time?.calls,
      byName.get_current_time?.successes,
      byName.get_current_time?.errors,
    ],
    [1, 1, {}],
  );
  assertEquals(
    [byName.read_file?.calls, byName.read_file?.successes, byName.read_file?.errors],
    [1, 0, { not_found: 1 }],
  );
  const [model] = stats.models;
  assertEquals(
    [model?.model, model?.turns, model?.promptTokens, model?.generatedTokens],
    ["m", 3, 420, 20],
  );

  const text = await sandbox.run(["stats"]);
  assertEquals(text.code, 0, text.stderr);
  match(text.stdout, /Usage of all sessions \(1 session\)/);
  match(text.stdout, /get_current_time\s+1\s+100%/);
  match(text.stdout, /read_file\s+1\s+0%.*not_found 1/);
  match(
    text.stdout,
    /Stops: loop guard 0 calls, repeated failures 0, iteration limit 0, tool-call limit 0; turns ended: answered 1/,
  );

  const recent = await sandbox.run(["stats", "--since", "1d", "--json"]);
  assertEquals((lastJsonLine(recent.stdout) as { sessions: number }).sessions, 1);
  const future = await sandbox.run(["stats", "--since", "2999-01-01"]);
  assertEquals([future.code, future.stdout.trim()], [
    0,
    `No sessions since ${new Date(2999, 0, 1).toISOString()}`,
  ]);
});

Deno.test("harness stats refuses a --since it cannot read, stray arguments, and --json elsewhere", async () => {
  await using sandbox = await cliSandbox();
  const bad = await sandbox.run(["stats", "--since", "last tuesday"]);
  assertEquals(bad.code, 2);
  match(bad.stderr, /Invalid value for --since "last tuesday": expected a date \(2026-05-01\)/);
  const extra = await sandbox.run(["stats", "now"]);
  assertEquals(extra.code, 2);
  match(extra.stderr, /Unexpected argument "now" for "harness stats"/);
  const elsewhere = await sandbox.run(["sessions", "--json"]);
  assertEquals(elsewhere.code, 2);
  match(elsewhere.stderr, /--json applies only to "harness doctor" and "harness stats"/);
  const empty = await sandbox.run(["stats"]);
  assertEquals([empty.code, empty.stdout.trim()], [0, "No sessions recorded yet"]);
});

Deno.test("REPL /stats shows the current session's calls, approvals and tokens", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().text("Earlier answer.").usage(10, 1),
    reply().toolCall("get_current_time", {}).usage(50, 2),
    reply().text("It is now.").usage(60, 3),
  ]);
  // An earlier session in the same database must not count.
  const earlier = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals(earlier.code, 0, earlier.stderr);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m"], {
    stdin: "what time is it\n/stats\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  const id = /session ([0-9a-f-]{36})/.exec(out.stdout)?.[1];
  assert(id, out.stdout);
  match(out.stdout, new RegExp(`Usage of session ${id}`));
  match(out.stdout, /get_current_time\s+1\s+100%/);
  match(out.stdout, /m\s+1\s+2\s+1\s+110\s+0\s+0\s+110\s+5/);
});

Deno.test("harness stats counts the calls the loop guard answered without running them", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "a\n");
  await using server = startFakeLlmServer([
    reply().toolCall("ls", { path: "." }),
    reply().toolCall("ls", { path: "." }),
    reply().toolCall("ls", { path: "." }),
    reply().text("Only a.txt."),
  ]);
  const run = await sandbox.run([
    "-p",
    "list",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
  ]);
  assertEquals(run.code, 0, run.stderr);
  const json = await sandbox.run(["stats", "--json"]);
  const stats = lastJsonLine(json.stdout) as {
    tools: { tool: string; calls: number; errors: Record<string, number> }[];
    stops: { loopGuard: number; repeatedFailures: number };
  };
  const ls = stats.tools.find((t) => t.tool === "ls");
  assertEquals([ls?.calls, ls?.errors], [3, { repeated_call: 1 }]);
  assertEquals([stats.stops.loopGuard, stats.stops.repeatedFailures], [1, 0]);
});

Deno.test("harness stats counts the prompt tokens a run's server reused and processed, as -p JSON did", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("get_current_time", {}),
    reply().text("It is now."),
  ], { llamaServer: { charsPerToken: 4, window: 8192 } });
  const run = await sandbox.run([
    "-p",
    "what time is it",
    "--output-format",
    "json",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
  ]);
  assertEquals(run.code, 0, run.stderr);
  const printed = (lastJsonLine(run.stdout) as {
    usage: { prompt_tokens: number; prompt_tokens_processed: number; prompt_tokens_reused: number };
  }).usage;
  // The second request repeated the first: the llama-server fake reused that prefix.
  assert(printed.prompt_tokens_reused > 0, JSON.stringify(printed));
  const json = await sandbox.run(["stats", "--json"]);
  assertEquals(json.code, 0, json.stderr);
  const [model] = (lastJsonLine(json.stdout) as {
    models: {
      turns: number;
      promptTokens: number;
      reusedTokens: number;
      processedTokens: number;
      unknownReuseTokens: number;
    }[];
  }).models;
  assertEquals(
    [
      model?.turns,
      model?.promptTokens,
      model?.reusedTokens,
      model?.processedTokens,
      model?.unknownReuseTokens,
    ],
    [
      2,
      printed.prompt_tokens,
      printed.prompt_tokens_reused,
      printed.prompt_tokens_processed,
      0,
    ],
  );
});
