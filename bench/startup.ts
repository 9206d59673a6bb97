// Start-up benchmark: spawns the real CLI (main.ts) and times, from spawn, a ready REPL
// prompt (no plugins of the user's, and with 50 user plugins), `--version`, a whole -p run
// against the scripted server and one `harness tool` call, each as a ratio to `deno run` of an
// empty script measured in the same run, next to issue 45's goals (-p at most 5x, a tool call
// under 250 ms). Also prints the REPL's idle RSS and the phase traces of a REPL start, a -p
// run and a tool call.
// The "reference" row is a bare node:readline prompt: what any REPL built on Deno's Node
// layer pays before its own code runs. harness shows its prompt before readline loads (keys typed
// meanwhile wait in the input buffer), so the "answers /help" row times real readiness: the
// first line typed, sent at spawn, answered.
// With three MCP servers configured (tests/fixtures/mcp/misbehaving_server.ts, each its own
// Deno process), the prompt must not move: they start after it; the time until their tools
// are ready is read from the phase trace. Two rows show what harness's own OpenAI-compatible
// client saves (DESIGN.md 15): importing npm:openai alone, which every -p answer needed before
// src/providers/openai_compat/chat_client.ts, and importing the provider module with its client.
// With --against DIR (another checkout, e.g. `git archive main | tar -x -C DIR`), its prompt,
// /help answer and -p run are timed in the same interleaved runs, and each ratio of this
// checkout to that one is printed: a change's start-up cost measured on the same machine state.
// Run: deno run -A --unstable-worker-options bench/startup.ts [--runs N] [--against DIR]
// (default 15 runs)

import { join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { reply, startFakeLlmServer } from "../tests/helpers/fake_llm_server.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
const FLAGS = ["run", "-A", "--no-prompt", "--unstable-worker-options"];
const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "15" }, against: { type: "string" } },
});
const RUNS = Math.max(1, Number(values.runs));
const AGAINST = values.against === undefined ? undefined : join(values.against, "main.ts");
const PLUGINS = 50;

interface Sample {
  ms: number;
  rssKiB?: number;
  stderr: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function rssKiB(pid: number): number | undefined {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined; // not Linux
  }
}

/** Deno's cache of this run, so children with their own HOME reuse it. */
async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
}

/**
 * Spawns `deno <args>` and returns the time from spawn until `ready(stdout)` holds (or until
 * exit when `ready` is not given). With `idleMs`, samples RSS that long after ready, then
 * closes stdin so the REPL exits.
 */
async function timed(
  args: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    ready?: RegExp;
    idleMs?: number;
    /** Typed at spawn, before any output. */
    input?: string;
  },
): Promise<Sample> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: options.ready ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  if (options.input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.input));
    writer.releaseLock();
  }
  let ms: number | undefined;
  let text = "";
  const decoder = new TextDecoder();
  const reader = child.stdout.getReader();
  let rss: number | undefined;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (options.ready && ms === undefined && options.ready.test(text)) {
      ms = performance.now() - started;
      if (options.idleMs !== undefined) {
        await new Promise((settle) => setTimeout(settle, options.idleMs));
        rss = rssKiB(child.pid);
      }
      await child.stdin.close();
    }
  }
  const status = await child.status;
  ms ??= performance.now() - started;
  if (!status.success) {
    throw new Error(`deno ${args.join(" ")} exited ${status.code}: ${await stderr}\n${text}`);
  }
  if (options.ready && !options.ready.test(text)) {
    throw new Error(`no ready marker in the output of deno ${args.join(" ")}:\n${text}`);
  }
  return { ms, stderr: await stderr, ...(rss === undefined ? {} : { rssKiB: rss }) };
}

/** A factory-form plugin like one a user drops into ~/.config/harness/plugins. */
function userPlugin(name: string): string {
  return `export default ({ z, defineTool }) =>
  defineTool({
    name: "${name}",
    description: "Count the words of a text (benchmark plugin ${name}).",
    risk: "safe",
    parameters: z.object({
      text: z.string().describe("Text to count"),
      unique: z.boolean().optional().describe("Count distinct words only"),
    }),
    run: ({ text, unique }) => {
      const words = text.split(/\\s+/).filter(Boolean);
      return { output: String(unique ? new Set(words).size : words.length) };
    },
  });
`;
}

async function makeHome(
  root: string,
  name: string,
  plugins: number,
  config?: Record<string, unknown>,
): Promise<Record<string, string>> {
  const home = join(root, name);
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    NO_COLOR: "1",
    HARNESS_API_KEY: "",
    OPENAI_API_KEY: "",
  };
  const pluginDir = join(env.XDG_CONFIG_HOME, "harness", "plugins");
  await Deno.mkdir(pluginDir, { recursive: true });
  if (config) {
    await Deno.writeTextFile(
      join(env.XDG_CONFIG_HOME, "harness", "config.jsonc"),
      `// benchmark\n${JSON.stringify(config, null, 2)}\n`,
    );
  }
  for (let i = 0; i < plugins; i++) {
    const tool = `bench_tool_${String(i).padStart(2, "0")}`;
    await Deno.writeTextFile(join(pluginDir, `${tool}.js`), userPlugin(tool));
  }
  return env;
}

const root = await Deno.makeTempDir({ prefix: "harness_startup_bench_" });
const cwd = join(root, "work");
await Deno.mkdir(cwd);
const emptyScript = join(root, "empty.ts");
await Deno.writeTextFile(emptyScript, "");
// The least a node:readline REPL costs in Deno: the Node layer and one interface, no harness.
const readlineScript = join(root, "readline_prompt.ts");
await Deno.writeTextFile(
  readlineScript,
  `import { createInterface } from "node:readline";
import process from "node:process";
const rl = createInterface({ input: process.stdin, output: process.stdout });
rl.setPrompt("Ctrl-D exits\\n> ");
rl.prompt();
rl.on("close", () => Deno.exit(0));
`,
);
// npm:openai alone (resolved through the project's import map), and the provider that
// replaced it on the -p path, alone.
const openaiScript = join(root, "openai_import.ts");
await Deno.writeTextFile(openaiScript, 'await import("openai");\n');
const PROVIDER = new URL("../src/providers/openai_compat.ts", import.meta.url).href;
const providerScript = join(root, "provider_import.ts");
await Deno.writeTextFile(providerScript, `await import(${JSON.stringify(PROVIDER)});\n`);
const shared = { DENO_DIR: await denoDir(), PATH: Deno.env.get("PATH") ?? "" };
const plainEnv = { ...shared, ...await makeHome(root, "plain", 0) };
const pluginEnv = { ...shared, ...await makeHome(root, "plugins", PLUGINS) };
// The other checkout keeps its own home: its session database may have an older schema.
const againstEnv = { ...shared, ...await makeHome(root, "against", 0) };
const MCP_FIXTURE = fileURLToPath(
  new URL("../tests/fixtures/mcp/misbehaving_server.ts", import.meta.url),
);
const mcpServer = { command: Deno.execPath(), args: ["run", "-A", "--no-prompt", MCP_FIXTURE] };
// A config file costs its parser; compare the MCP case with a config file of no servers.
const configEnv = { ...shared, ...await makeHome(root, "config", 0, { max_iterations: 10 }) };
const mcpEnv = {
  ...shared,
  ...await makeHome(root, "mcp", 0, {
    max_iterations: 10,
    mcp_servers: { one: mcpServer, two: mcpServer, three: mcpServer },
  }),
};
const allowRun = `--allow-run=${Deno.execPath()}`;
// One answer per -p run: each warm-up and timed run, of both checkouts with --against.
const server = startFakeLlmServer(
  Array.from({ length: 2 * (RUNS + 3) }, () => reply().text("Done.")),
);
const model = ["--base-url", server.baseUrl, "--model", "m"];
// The banner's last line, then the prompt: what a user sees when they can type.
const PROMPT = /Ctrl-D exits\n> /;
// The last line of /help's answer.
const HELP_ANSWERED = /Ctrl-C twice or Ctrl-D exits\n/;

const cases: Record<string, () => Promise<Sample>> = {
  "deno run empty.ts": () => timed([...FLAGS, emptyScript], { cwd, env: plainEnv }),
  "harness --version": () => timed([...FLAGS, MAIN, "--version"], { cwd, env: plainEnv }),
  "reference: node:readline prompt alone": () =>
    timed([...FLAGS, readlineScript], { cwd, env: plainEnv, ready: PROMPT }),
  "REPL prompt": () =>
    timed([...FLAGS, MAIN, ...model], { cwd, env: plainEnv, ready: PROMPT, idleMs: 0 }),
  "REPL answers /help typed at spawn": () =>
    timed([...FLAGS, MAIN, ...model], {
      cwd,
      env: plainEnv,
      ready: HELP_ANSWERED,
      input: "/help\n",
    }),
  [`REPL prompt, ${PLUGINS} user plugins`]: () =>
    timed([...FLAGS, MAIN, ...model], { cwd, env: pluginEnv, ready: PROMPT }),
  "REPL prompt, config file": () =>
    timed([...FLAGS, MAIN, ...model, allowRun], { cwd, env: configEnv, ready: PROMPT }),
  "REPL prompt, config + 3 MCP servers": () =>
    timed([...FLAGS, MAIN, ...model, allowRun], { cwd, env: mcpEnv, ready: PROMPT }),
  "-p run (one answer)": () =>
    timed([...FLAGS, MAIN, ...model, "--no-session", "-p", "hi"], { cwd, env: plainEnv }),
  "harness tool get_working_directory": () =>
    timed([...FLAGS, MAIN, "tool", "get_working_directory", "{}"], { cwd, env: plainEnv }),
  "reference: npm:openai import alone": () =>
    timed([...FLAGS, "--config", CONFIG, openaiScript], { cwd, env: plainEnv }),
  "openai_compat.ts (own client) import": () =>
    timed([...FLAGS, "--config", CONFIG, providerScript], { cwd, env: plainEnv }),
};
/** The cases timed for both checkouts with --against, by name. */
const COMPARED = [
  "REPL prompt",
  "REPL answers /help typed at spawn",
  "-p run (one answer)",
  "harness tool get_working_directory",
];
if (AGAINST !== undefined) {
  cases["REPL prompt [against]"] = () =>
    timed([...FLAGS, AGAINST, ...model], { cwd, env: againstEnv, ready: PROMPT, idleMs: 0 });
  cases["REPL answers /help typed at spawn [against]"] = () =>
    timed([...FLAGS, AGAINST, ...model], {
      cwd,
      env: againstEnv,
      ready: HELP_ANSWERED,
      input: "/help\n",
    });
  cases["-p run (one answer) [against]"] = () =>
    timed([...FLAGS, AGAINST, ...model, "--no-session", "-p", "hi"], { cwd, env: againstEnv });
  cases["harness tool get_working_directory [against]"] = () =>
    timed([...FLAGS, AGAINST, "tool", "get_working_directory", "{}"], { cwd, env: againstEnv });
}

try {
  // The first 50-plugin start fills the schema cache; time it alone, cold.
  const cold = await timed([...FLAGS, MAIN, ...model], { cwd, env: pluginEnv, ready: PROMPT });
  for (const run of Object.values(cases)) await run(); // warm the file cache
  const samples: Record<string, number[]> = Object.fromEntries(
    Object.keys(cases).map((name) => [name, []]),
  );
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so every case sees the same machine state.
    for (const [name, run] of Object.entries(cases)) samples[name]!.push((await run()).ms);
  }
  const base = median(samples["deno run empty.ts"]!);
  console.log(`start-up, median of ${RUNS} runs (ratio to deno run of an empty script):`);
  for (const [name, values] of Object.entries(samples)) {
    const ms = median(values);
    console.log(`  ${name.padEnd(40)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / base).toFixed(2)}x`);
  }
  // Issue 45's goals, next to what this run measured.
  const p = median(samples["-p run (one answer)"]!);
  const tool = median(samples["harness tool get_working_directory"]!);
  console.log(
    `goals: -p at most 5x an empty script: ${(p / base).toFixed(2)}x ` +
      `(${p / base <= 5 ? "met" : "not met"}); harness tool under 250 ms: ${tool.toFixed(0)} ms ` +
      `(${tool < 250 ? "met" : "not met"})`,
  );
  if (AGAINST !== undefined) {
    console.log(`this checkout against ${values.against} (same runs, interleaved):`);
    for (const name of COMPARED) {
      const ours = median(samples[name]!);
      const theirs = median(samples[`${name} [against]`]!);
      console.log(
        `  ${name.padEnd(40)} ${ours.toFixed(1).padStart(7)} ms vs ${
          theirs.toFixed(1).padStart(7)
        } ms  ${((ours / theirs - 1) * 100).toFixed(1)}%`,
      );
    }
  }
  console.log(
    `  ${`REPL prompt, ${PLUGINS} plugins, cold cache`.padEnd(40)} ${
      cold.ms.toFixed(1).padStart(7)
    } ms  ${(cold.ms / base).toFixed(2)}x  (one run)`,
  );

  const atPrompt = await timed([...FLAGS, MAIN, ...model], {
    cwd,
    env: plainEnv,
    ready: PROMPT,
    idleMs: 0,
  });
  const idle = await timed([...FLAGS, MAIN, ...model], {
    cwd,
    env: plainEnv,
    ready: PROMPT,
    idleMs: 1000,
  });
  const mib = (kib: number | undefined) =>
    kib === undefined ? "n/a" : `${(kib / 1024).toFixed(1)} MiB`;
  console.log(
    `REPL RSS at the prompt: ${mib(atPrompt.rssKiB)}; idle 1 s later: ${mib(idle.rssKiB)}`,
  );

  const traced = await timed([...FLAGS, MAIN, ...model], {
    cwd,
    env: { ...plainEnv, HARNESS_TRACE_STARTUP: "1" },
    ready: PROMPT,
    idleMs: 500,
  });
  console.log(
    "phases of one REPL start (HARNESS_TRACE_STARTUP=1; ms on the runtime's clock, " +
      "which an empty script reaches at about 2 ms):",
  );
  for (const line of traced.stderr.split("\n")) {
    if (line.startsWith("startup ")) console.log(`  ${line.slice("startup ".length)}`);
  }
  const tracedPrint = await timed([...FLAGS, MAIN, ...model, "--no-session", "-p", "hi"], {
    cwd,
    env: { ...plainEnv, HARNESS_TRACE_STARTUP: "1" },
  });
  console.log("phases of one -p run:");
  for (const line of tracedPrint.stderr.split("\n")) {
    if (line.startsWith("startup ")) console.log(`  ${line.slice("startup ".length)}`);
  }
  const tracedTool = await timed([...FLAGS, MAIN, "tool", "get_working_directory", "{}"], {
    cwd,
    env: { ...plainEnv, HARNESS_TRACE_STARTUP: "1" },
  });
  console.log("phases of one harness tool call:");
  for (const line of tracedTool.stderr.split("\n")) {
    if (line.startsWith("startup ")) console.log(`  ${line.slice("startup ".length)}`);
  }
  const mcpReady: number[] = [];
  let mcpTrace = "";
  for (let i = 0; i < Math.min(RUNS, 5); i++) {
    mcpTrace = (await timed([...FLAGS, MAIN, ...model, allowRun], {
      cwd,
      env: { ...mcpEnv, HARNESS_TRACE_STARTUP: "1" },
      ready: PROMPT,
      idleMs: 3000,
    })).stderr;
    const at = (phase: string) =>
      Number(
        /startup\s+([\d.]+) ms {2}(.*)/.exec(
          mcpTrace.split("\n").find((l) => l.endsWith(phase)) ?? "",
        )?.[1],
      );
    mcpReady.push(at("MCP servers' tools ready") - at("REPL reading input"));
  }
  console.log(
    `3 MCP servers: tools ready ${median(mcpReady).toFixed(0)} ms after the prompt ` +
      `(median of ${mcpReady.length}); phases of one start:`,
  );
  for (const line of mcpTrace.split("\n")) {
    if (line.startsWith("startup ")) console.log(`  ${line.slice("startup ".length)}`);
  }
} finally {
  await server.close();
  await Deno.remove(root, { recursive: true });
}
