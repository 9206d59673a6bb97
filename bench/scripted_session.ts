// A scripted multi-turn session for bench/: the real CLI (its REPL fed one user message per
// line on stdin) against the fake llama-server of tests/helpers/fake_llm_server.ts, which
// keeps its previous request and counts what it processed and reused. The model reads the file
// each message names, answers the curator's question and summary requests; the workspace holds
// generated source and text files. prompt_cache_bench.ts and soak_bench.ts run it.

import { join } from "node:path";
import { reply, startFakeLlmServer } from "../tests/helpers/fake_llm_server.ts";
import type { RecordedRequest } from "../tests/helpers/fake_llm_server.ts";
import type { PromptCount } from "../tests/helpers/prompt_cache.ts";
import { renderPrompt } from "../tests/helpers/prompt_cache.ts";
import { currentDenoDir } from "../tests/helpers/run_cli.ts";

/** What a request was for. */
export type RequestKind = "turn" | "curator" | "summary";

/** Options of {@linkcode runScriptedSession}. */
export interface SessionOptions {
  /** The main.ts to run (this checkout's, or another's for a before/after). */
  entry: string;
  /** One user message per entry: each names the file to read. */
  messages: string[];
  /** Files to write into the workspace, by relative path. */
  files: Record<string, string>;
  window: number;
  charsPerToken: number;
  /** Extra CLI flags (e.g. --no-curator). */
  flags?: string[];
  /** Extra environment for the harness process. */
  env?: Record<string, string>;
}

/** What one session did, as the server and the process saw it. */
export interface SessionResult {
  counts: PromptCount[];
  kinds: RequestKind[];
  /** Tokens of every message the conversation's requests held, each counted once. */
  conversationTokens: number;
  /** Tokens of the last conversation request. */
  finalPrompt: number;
  /** Conversation requests that did not start with the one before (steps, summaries). */
  breaks: number;
  /** Highest and last resident memory of the harness process, in MB (Linux only). */
  rssMb: { peak: number; last: number };
  /** Resident memory (MB) each time another tenth of the requests had arrived. */
  rssByTenth: number[];
  /** Milliseconds harness took between a read_file call and its next request, per read. */
  readOverheadMs: number[];
  exitCode: number;
  stderrTail: string;
  elapsedMs: number;
}

const SUMMARY_TEXT = "Summary: the user asked about several generated modules; each was read " +
  "and its functions described. Next: answer the next question about a module.";

/** The file a user message names (`src/mod3.ts`, `notes/n2.md`). */
function fileIn(text: string): string {
  return /\b([\w/]+\.(?:ts|py|md|txt))\b/.exec(text)?.[1] ?? "missing.txt";
}

function kindOf(request: RecordedRequest): RequestKind {
  const last = request.messages.at(-1);
  const content = typeof last?.content === "string" ? last.content : "";
  const first = request.messages[0];
  if (last?.role === "user" && content.startsWith("Summarize our conversation")) return "summary";
  if (last?.role === "tool" && content.includes("Choose the lines that matter now")) {
    return "curator";
  }
  // The curator of earlier versions: its own system prompt, the file in a user message.
  if (typeof first?.content === "string" && first.content.startsWith("You choose the parts")) {
    return "curator";
  }
  return "turn";
}

/** The model: reads the named file, then answers in a sentence; ranges and summaries too. */
function respond(kinds: RequestKind[]) {
  let reads = 0;
  return (request: RecordedRequest, number: number) => {
    const kind = kindOf(request);
    kinds[number - 1] = kind;
    if (kind === "summary") return reply().text(SUMMARY_TEXT);
    if (kind === "curator") return reply().text('{"ranges": [[40, 90]]}');
    const last = request.messages.at(-1);
    if (last?.role === "user") {
      reads++;
      const path = fileIn(String(last.content));
      return reply().toolCall("read_file", { path }, { id: `call_${reads}` });
    }
    return reply().text(
      `That file defines a few dozen small functions; the one asked about adds its argument to ` +
        `a constant and returns it (read ${reads}).`,
    );
  };
}

/** Every message of the conversation's requests, each counted once (blocks of the prompt). */
function conversationTokens(requests: RecordedRequest[], charsPerToken: number): number {
  const seen = new Map<string, number>();
  for (const request of requests) {
    const here = new Map<string, number>();
    for (const block of renderPrompt(request).split("<|im_start|>")) {
      here.set(block, (here.get(block) ?? 0) + 1);
    }
    for (const [block, n] of here) seen.set(block, Math.max(seen.get(block) ?? 0, n));
  }
  let tokens = 0;
  for (const [block, n] of seen) tokens += n * Math.ceil(block.length / charsPerToken);
  return tokens;
}

/** Resident and peak memory of a process, from /proc (Linux), in MB. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number } | undefined> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * Runs one scripted session and measures it.
 *
 * @param options The entry point, the user messages, the workspace's files, the server's
 *   window and characters per token, and extra flags.
 * @returns What the server counted and what the process used.
 */
export async function runScriptedSession(options: SessionOptions): Promise<SessionResult> {
  const root = await Deno.makeTempDir({ prefix: "harness_session_bench_" });
  const cwd = join(root, "work");
  const home = join(root, "home");
  for (const [path, text] of Object.entries(options.files)) {
    await Deno.mkdir(join(cwd, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(cwd, path), text);
  }
  await Deno.mkdir(home, { recursive: true });
  const kinds: RequestKind[] = [];
  await using server = startFakeLlmServer(respond(kinds), {
    llamaServer: { charsPerToken: options.charsPerToken, window: options.window },
  });
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-prompt",
      "--unstable-worker-options",
      // As `deno task compile` builds the binary: V8 keeps the heap small (about 90 MB less
      // after 300 turns, no slower).
      "--v8-flags=--optimize-for-size",
      options.entry,
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "--allow-read=.",
      ...(options.flags ?? []),
    ],
    cwd,
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
    env: {
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      XDG_CACHE_HOME: join(home, ".cache"),
      NO_COLOR: "1",
      DENO_DIR: await currentDenoDir(),
      PATH: Deno.env.get("PATH") ?? "",
      ...options.env,
    },
  }).spawn();
  const rss = { peak: 0, last: 0 };
  const rssByTenth: number[] = [];
  const expected = options.messages.length * 2;
  const sampler = setInterval(async () => {
    const memory = await memoryOf(child.pid);
    // A process that has exited reads as zero: keep the last real sample.
    if (memory && memory.rss > 0) {
      rss.peak = Math.max(rss.peak, memory.peak, memory.rss);
      rss.last = memory.rss;
      const tenth = Math.floor((server.requests.length / expected) * 10);
      if (tenth > rssByTenth.length && tenth <= 10) rssByTenth.push(Math.round(memory.rss));
    }
  }, 100);
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(options.messages.map((m) => `${m}\n`).join("")));
  await writer.close();
  const status = await child.status;
  clearInterval(sampler);
  const elapsedMs = performance.now() - started;
  const counts = server.cache!.log;
  const turns = server.requests.filter((_, i) => kinds[i] === "turn" && !counts[i]?.refused);
  let breaks = 0;
  for (let i = 1; i < turns.length; i++) {
    const before = renderPrompt(turns[i - 1]!).replace(/<\|im_start\|>assistant\n$/, "");
    if (!renderPrompt(turns[i]!).startsWith(before)) breaks++;
  }
  const readOverheadMs: number[] = [];
  server.requests.forEach((request, i) => {
    const last = request.messages.at(-1);
    const asked = kinds[i] === "turn" && last?.role === "user" && !counts[i]?.refused;
    if (!asked) return;
    // From the reply that called read_file to the conversation's next request, minus the
    // curator's side request's own reply (the server's time, not harness's).
    let overhead = 0;
    let j = i;
    while (j + 1 < server.times.length) {
      const end = server.times[j]!.ended;
      if (end === undefined) break;
      overhead += server.times[j + 1]!.received - end;
      j++;
      if (kinds[j] !== "curator") break;
    }
    readOverheadMs.push(overhead);
  });
  const lastTurn = counts.findLast((c, i) => kinds[i] === "turn" && !c.refused);
  await Deno.remove(root, { recursive: true }).catch(() => {});
  const tail = (await stderr).split("\n").filter((l) => l.trim() !== "").slice(-5).join("\n");
  return {
    counts,
    kinds,
    conversationTokens: conversationTokens(turns, options.charsPerToken),
    finalPrompt: lastTurn?.prompt ?? 0,
    breaks,
    rssMb: rss,
    rssByTenth,
    readOverheadMs,
    exitCode: status.code,
    stderrTail: tail,
    elapsedMs,
  };
}

/**
 * TypeScript source of `functions` small functions (about twelve lines each).
 *
 * @example
 * ```ts
 * import { sourceFile } from "./scripted_session.ts";
 * if (!sourceFile(1, 2).includes("export function f1_1(")) throw new Error();
 * ```
 */
export function sourceFile(module: number, functions: number): string {
  const out: string[] = [`// Module ${module}: generated for the benchmark.`, ""];
  for (let f = 0; f < functions; f++) {
    out.push(
      `/** Adds ${f} to the value of module ${module}, with a check. */`,
      `export function f${module}_${f}(value: number): number {`,
      `  const offset = ${f} + ${module};`,
      `  if (Number.isNaN(value)) {`,
      `    throw new Error("f${module}_${f}: value is not a number");`,
      `  }`,
      `  const result = value + offset;`,
      `  return result;`,
      `}`,
      "",
    );
  }
  return out.join("\n");
}

/** Sums a list. */
export function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** The value at a share of a sorted copy (0.5: the median). */
export function quantile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
}

/**
 * Writes `git archive REF` of this repository to a temp folder and returns its main.ts, so a
 * bench can run another version of harness in the same run.
 *
 * @param ref A commit, branch or tag (e.g. "main").
 */
export async function checkoutOf(ref: string): Promise<{ entry: string; remove(): Promise<void> }> {
  const repo = new URL("..", import.meta.url).pathname;
  const dir = await Deno.makeTempDir({ prefix: `harness_${ref.replaceAll("/", "_")}_` });
  const archive = await new Deno.Command("git", {
    args: ["-C", repo, "archive", "--format=tar", ref],
    stdout: "piped",
  }).output();
  if (!archive.success) throw new Error(`git archive ${ref} failed`);
  const untar = new Deno.Command("tar", { args: ["-x", "-C", dir], stdin: "piped" }).spawn();
  const writer = untar.stdin.getWriter();
  await writer.write(archive.stdout);
  await writer.close();
  if (!(await untar.status).success) throw new Error(`tar failed for ${ref}`);
  return {
    entry: join(dir, "main.ts"),
    remove: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

/** A version of harness a bench runs: this checkout (with flags) or another ref's. */
export interface Version {
  name: string;
  entry: string;
  flags: string[];
}

/**
 * The versions to compare: this checkout, this checkout with --no-curator, and `before` (a git
 * ref) when given.
 *
 * @param before A git ref to run too, or undefined.
 * @returns The versions, and a function that removes the other ref's files.
 */
export async function versionsToRun(
  before: string | undefined,
): Promise<{ versions: Version[]; remove(): Promise<void> }> {
  const here = new URL("../main.ts", import.meta.url).pathname;
  const other = before ? await checkoutOf(before) : undefined;
  return {
    versions: [
      { name: "this checkout", entry: here, flags: [] },
      { name: "this, --no-curator", entry: here, flags: ["--no-curator"] },
      ...(other ? [{ name: before!, entry: other.entry, flags: [] }] : []),
    ],
    remove: () => other?.remove() ?? Promise.resolve(),
  };
}
