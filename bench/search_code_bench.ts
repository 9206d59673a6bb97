// Semantic search benchmark (search_code), against a scripted embedding server:
//  1. index time: embedding and storing every definition of this repository, per 1,000
//     chunks, beside the graph's own indexing time and the server's share, in the same run;
//  2. query latency on 50,000 chunks of 768 numbers: the first search (vectors loaded from
//     SQLite) and the next ones (in memory), against exact float32 scoring of the same rows;
//  3. recall on natural-language questions about this repository (no identifiers in them):
//     the expected file among search_code's top 5 and 10 files, against grep_search run once
//     per word of the question with files ranked by how many of the words they contain.
// A scripted server cannot give real semantics: its embedding is a hashed bag of words
// (tests/helpers/hashed_embedding.ts), so recall here measures word overlap, a floor for a
// real embedding model. Run: deno run -A --unstable-worker-options bench/search_code_bench.ts

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CodeTools } from "../src/code_index/code_tools.ts";
import { GraphStore } from "../src/code_index/graph_store.ts";
import { indexWorkspace } from "../src/code_index/index_workspace.ts";
import { SemanticSearch } from "../src/code_index/semantic_search.ts";
import { normalize, topMatches } from "../src/code_index/vector_math.ts";
import { VectorStore } from "../src/code_index/vector_store.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";
import { createEmbedder } from "../src/providers/embeddings/embedder.ts";
import type { Grants } from "../src/sandbox/grants/grants.ts";
import { grepTree } from "../src/tools/search/grep_files.ts";
import { startFakeEmbeddingServer } from "../tests/helpers/fake_embedding_server.ts";
import { hashedBagOfWords, words } from "../tests/helpers/hashed_embedding.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const DIMENSIONS = 768;

function grantsFor(workspace: string): Grants {
  const parsed = parseGrantFlags([`--allow-read=${workspace}`], { cwd: workspace });
  if (!parsed.ok) throw new Error("grants");
  return parsed.value.grants;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

/** A question about this repository and the files that answer it. */
interface Question {
  ask: string;
  files: string[];
}

const QUESTIONS: Question[] = [
  {
    ask: "Streamed tool call pieces arrive split across chunks; where are they put back together?",
    files: ["src/providers/openai_compat/stream_reader.ts"],
  },
  {
    ask: "Which permission rule decides whether a tool call is allowed?",
    files: ["src/permissions/policy.ts"],
  },
  {
    ask: "Long command output is cut to its head and tail; where?",
    files: ["src/sandbox/workers/truncate_output.ts"],
  },
  {
    ask: "How is a session's message list rebuilt from the event log after a crash?",
    files: ["src/sessions/replay.ts"],
  },
  {
    ask: "Ignore files with negated patterns are compiled and matched somewhere; where?",
    files: ["src/tools/search/gitignore_rules.ts"],
  },
  {
    ask: "How are the user's permission flags narrowed for one plugin's sandbox worker?",
    files: ["src/sandbox/grants/effective_permissions.ts"],
  },
  {
    ask: "Shell commands with && and pipes are split into sub-commands for the permission check",
    files: ["src/shell/split_command.ts"],
  },
  {
    ask: "Broken JSON in the model's tool arguments gets fixed up; where?",
    files: ["src/agent/repair_arguments.ts"],
  },
  {
    ask: "Where does harness look for a model server running on this machine?",
    files: ["src/providers/discover_server.ts"],
  },
  {
    ask: "How is the conversation shortened when it no longer fits the context window?",
    files: ["src/agent/compaction.ts", "src/agent/context_budget.ts"],
  },
  {
    ask: "A tool call that keeps failing the same way is stopped after a few tries",
    files: ["src/agent/repair_arguments.ts", "src/agent/conversation.ts"],
  },
  {
    ask: "How is a model file downloaded once into the cache folder with a checksum?",
    files: ["src/providers/model_download.ts"],
  },
  {
    ask: "Where are the permission flags like allow-read parsed from the command line?",
    files: ["src/cli/grant_flags.ts"],
  },
  {
    ask: "How is the bubblewrap command line built to confine a command?",
    files: [
      "src/sandbox/commands/command_sandbox.ts",
      "src/sandbox/commands/command_sandbox_rules.ts",
      "src/sandbox/commands/command_sandbox_launcher.ts",
    ],
  },
  {
    ask: "Where does the interactive prompt keep the lines typed in each folder?",
    files: ["src/ui/repl_history.ts"],
  },
  {
    ask: "A plugin from a cloned repository is trusted by the hash of its content; where?",
    files: ["src/permissions/project_trust.ts", "src/config/trust_store.ts"],
  },
];

// ---- 1. Index time ----------------------------------------------------------------------

const data = await Deno.makeTempDir({ prefix: "harness_search_code_bench_" });
let serverMs = 0;
await using server = startFakeEmbeddingServer({
  embed: (text) => {
    const started = performance.now();
    const vector = hashedBagOfWords(text, DIMENSIONS);
    serverMs += performance.now() - started;
    return vector;
  },
});
const embedder = createEmbedder({ api: "ollama", baseUrl: server.root, model: "nomic-embed-text" });
try {
  const store = GraphStore.open(join(data, "repo.db"));
  const graphStarted = performance.now();
  const indexed = await indexWorkspace({ workspace: REPO, grants: grantsFor(REPO), store });
  const graphMs = performance.now() - graphStarted;
  const search = new SemanticSearch(embedder);
  const embedStarted = performance.now();
  const first = await search.search(store, {
    query: "warm up",
    limit: 1,
    visible: () => true,
    generation: 1,
  });
  const embedMs = performance.now() - embedStarted;
  if (!first.ok) throw new Error(JSON.stringify(first.error));
  const chunks = first.value.embedded;
  const per1k = (n: number) => ms((n / chunks) * 1000);
  console.log(`1. Index time, this repository: ${indexed.files} files, ${chunks} chunks`);
  console.log(
    `   graph (parse, chunk, store)     ${ms(graphMs).padStart(9)}   ${
      per1k(graphMs)
    } per 1k chunks`,
  );
  console.log(
    `   embed and store (scripted)      ${ms(embedMs).padStart(9)}   ${
      per1k(embedMs)
    } per 1k chunks`,
  );
  console.log(
    `     of which the server's hashing ${ms(serverMs).padStart(9)}   ${
      per1k(serverMs)
    } per 1k chunks`,
  );
  console.log(`   embedding adds ${(embedMs / graphMs * 100).toFixed(0)}% to the graph's time`);
  store.close();

  await queryLatency(join(data, "large.db"));

  // ---- 3. Recall (this repository's index, reused) ------------------------------------
  const tools = new CodeTools({
    workspace: REPO,
    grants: grantsFor(REPO),
    dataDir: data,
    embedder: () => Promise.resolve(embedder),
  });
  await tools.ready();
  const hits = { sc5: 0, sc10: 0, grep5: 0, grep10: 0 };
  const missing = QUESTIONS.flatMap((q) => q.files).filter((f) => {
    try {
      return !Deno.statSync(join(REPO, f)).isFile;
    } catch {
      return true;
    }
  });
  const known = QUESTIONS.filter((q) => q.files.some((f) => !missing.includes(f)));
  let grepMs = 0;
  let searchMs = 0;
  for (const q of known) {
    let started = performance.now();
    const run = await tools.run("search_code", { query: q.ask, limit: 30 }, {});
    searchMs += performance.now() - started;
    const files = [
      ...new Set(
        (run.result.data ?? "").split("\n").slice(1).map((line) => line.split(":")[0]!),
      ),
    ];
    started = performance.now();
    const ranked = grepRanking(q.ask);
    grepMs += performance.now() - started;
    const rank = (list: string[]) => list.findIndex((f) => q.files.includes(f));
    const s = rank(files);
    const g = rank(ranked);
    if (s >= 0 && s < 5) hits.sc5++;
    if (s >= 0 && s < 10) hits.sc10++;
    if (g >= 0 && g < 5) hits.grep5++;
    if (g >= 0 && g < 10) hits.grep10++;
  }
  tools.close();
  const n = known.length;
  const pct = (k: number) => `${k}/${n} (${Math.round((k / n) * 100)}%)`;
  console.log(
    `\n3. Recall on ${n} questions about this repository (the answer's file in the top k)`,
  );
  if (missing.length > 0) {
    console.log(`   (expected files not found, left out: ${missing.join(", ")})`);
  }
  console.log(
    `   search_code (hashed bag of words)   top 5: ${pct(hits.sc5)}   top 10: ${pct(hits.sc10)}   ${
      ms(searchMs / n)
    } per question`,
  );
  console.log(
    `   grep_search, one search per word    top 5: ${pct(hits.grep5)}   top 10: ${
      pct(hits.grep10)
    }   ${ms(grepMs / n)} per question`,
  );
} finally {
  await Deno.remove(data, { recursive: true });
}

// ---- 2. Query latency on 50,000 chunks -------------------------------------------------

/** A deterministic word soup: `count` words from a vocabulary of 4,000. */
function soup(seed: number, count: number): string {
  let x = seed;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(`w${(x >>> 8) % 4000}`);
  }
  return out.join(" ");
}

async function queryLatency(path: string): Promise<void> {
  const CHUNKS = 50_000;
  const PER_FILE = 10;
  const store = GraphStore.open(path);
  const vectors = new VectorStore(store.db);
  const fillStarted = performance.now();
  for (let f = 0; f < CHUNKS / PER_FILE; f++) {
    const file = `src/module_${f}.ts`;
    const definitions = Array.from({ length: PER_FILE }, (_, i) => ({
      name: `fn${i}`,
      kind: "function",
      line: i * 10 + 1,
      endLine: i * 10 + 9,
      signature: `export function fn${i}() {`,
    }));
    const chunks = definitions.map((d, i) => ({
      line: d.line,
      endLine: d.endLine,
      hash: `${f}:${i}`,
      text: soup(f * PER_FILE + i + 1, 60),
    }));
    store.putFile({ path: file, size: 1, mtimeMs: 0, hash: file }, "typescript", {
      definitions,
      references: [],
    }, chunks);
    vectors.put(
      "nomic-embed-text",
      chunks.map((c) => ({
        hash: c.hash,
        vector: Float32Array.from(hashedBagOfWords(c.text, DIMENSIONS)),
      })),
    );
  }
  const fillMs = performance.now() - fillStarted;
  const queries = Array.from({ length: 21 }, (_, i) => soup(900_000 + i, 8));
  const search = new SemanticSearch(embedder);
  const ask = (query: string) =>
    search.search(store, { query, limit: 10, visible: () => true, generation: 1 });
  let started = performance.now();
  const cold = await ask(queries[0]!);
  const coldMs = performance.now() - started;
  if (!cold.ok || cold.value.searched !== CHUNKS) throw new Error(JSON.stringify(cold));
  const warm: number[] = [];
  for (const query of queries.slice(1)) {
    started = performance.now();
    await ask(query);
    warm.push(performance.now() - started);
  }
  // Scoring alone, 8-bit (as search_code) and exact float32 (the reference), same rows.
  const loaded = vectors.load("nomic-embed-text");
  const exact = new Float32Array(loaded.count * DIMENSIONS);
  for (let row = 0; row < loaded.count; row++) {
    for (let i = 0; i < DIMENSIONS; i++) {
      exact[row * DIMENSIONS + i] = loaded.q[row * DIMENSIONS + i]! * loaded.scales[row]!;
    }
  }
  // The exact rows come from the model's float vectors, not the 8-bit ones.
  const rows = store.db.prepare(
    "SELECT c.text FROM chunks c JOIN embeddings e ON e.model = ? AND e.hash = c.hash",
  ).all("nomic-embed-text");
  rows.forEach((row, r) => {
    const v = normalize(Float32Array.from(hashedBagOfWords(String(row.text), DIMENSIONS)));
    exact.set(v, r * DIMENSIONS);
  });
  const scoreQ: number[] = [];
  const scoreF: number[] = [];
  let agree = 0;
  for (const query of queries.slice(1)) {
    const q = normalize(Float32Array.from(hashedBagOfWords(query, DIMENSIONS)));
    started = performance.now();
    const quantized = topMatches(loaded, q, { k: 10, keep: () => true });
    scoreQ.push(performance.now() - started);
    started = performance.now();
    const reference = exactTop(exact, loaded.count, q, 10);
    scoreF.push(performance.now() - started);
    const same = new Set(reference);
    agree += quantized.filter((m) => same.has(m.row)).length;
  }
  store.close();
  console.log(
    `\n2. Query latency on ${CHUNKS} chunks of ${DIMENSIONS} numbers (stored in ${ms(fillMs)})`,
  );
  console.log(`   first search (load from SQLite)  ${ms(coldMs).padStart(9)}`);
  console.log(
    `   next searches, median of 20      ${
      ms(median(warm)).padStart(9)
    }   (embedding the query included)`,
  );
  console.log(
    `   scoring, 8-bit (search_code)     ${ms(median(scoreQ)).padStart(9)}   ${
      (loaded.q.byteLength / 1048576).toFixed(0)
    } MiB in memory`,
  );
  console.log(
    `   scoring, exact float32           ${ms(median(scoreF)).padStart(9)}   ${
      (exact.byteLength / 1048576).toFixed(0)
    } MiB; 8-bit is ${(median(scoreF) / median(scoreQ)).toFixed(2)}x`,
  );
  console.log(`   top-10 agreement with exact      ${(agree / (20 * 10) * 100).toFixed(1)}%`);
}

/** Row indexes of the k best exact cosine scores (unit rows, unit query). */
function exactTop(matrix: Float32Array, count: number, query: Float32Array, k: number): number[] {
  const scores = new Float32Array(count);
  for (let row = 0; row < count; row++) {
    let dot = 0;
    const base = row * DIMENSIONS;
    for (let i = 0; i < DIMENSIONS; i++) dot += matrix[base + i]! * query[i]!;
    scores[row] = dot;
  }
  return [...scores.keys()].sort((a, b) => scores[b]! - scores[a]!).slice(0, k);
}

/** Files ranked by how many of the question's words they contain (grep_search per word). */
function grepRanking(question: string): string[] {
  const counts = new Map<string, { words: number; lines: number }>();
  for (const word of new Set(words(question).filter((w) => w.length >= 4))) {
    const found = grepTree(REPO, ".", {
      pattern: word,
      caseSensitive: false,
      maxResults: 100_000,
      includeHidden: false,
      respectGitignore: true,
    });
    const perFile = new Map<string, number>();
    for (const m of found.matches) perFile.set(m.path, (perFile.get(m.path) ?? 0) + 1);
    for (const [path, lines] of perFile) {
      const entry = counts.get(path) ?? { words: 0, lines: 0 };
      entry.words++;
      entry.lines += lines;
      counts.set(path, entry);
    }
  }
  return [...counts].sort(([, a], [, b]) => b.words - a.words || b.lines - a.lines)
    .map(([path]) => path);
}
