// Code graph benchmark: cold index time and files/s on a tree of 5,000+ files (npm:openai's
// package, three times), warm update after one edit, and ranking quality: recall@k of code_map and
// find_definition on questions over this repository and openai's sources whose answer (file
// and definition) is known, with the tokens they cost against reading the files whole.
//
//   deno run -A --unstable-worker-options bench/code_index_bench.ts

import "openai";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CodeTools } from "../src/code_index/code_tools.ts";
import { GraphStore } from "../src/code_index/graph_store.ts";
import { indexWorkspace } from "../src/code_index/index_workspace.ts";
import { type Grants } from "../src/sandbox/grants/grants.ts";
import { parseGrantFlags } from "../src/cli/grant_flags.ts";
import { curateRead, type SidePrefix } from "../src/code_index/file_curator.ts";
import { toolCallMessage } from "../src/messages.ts";
import { createOpenAICompatProvider } from "../src/providers/openai_compat.ts";
import { answer, ScriptedProvider } from "../src/providers/scripted.ts";
import { reply, startFakeLlmServer } from "../tests/helpers/fake_llm_server.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
// The package root: the folder above the file "openai" resolves to (index.mjs or index.js).
const OPENAI = dirname(fileURLToPath(import.meta.resolve("openai")));

function grantsFor(workspace: string): Grants {
  const parsed = parseGrantFlags([`--allow-read=${workspace}`], { cwd: workspace });
  if (!parsed.ok) throw new Error("grants");
  return parsed.value.grants;
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory) await copyTree(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

interface Question {
  /** What the user asked, the text the map is personalised to. */
  ask: string;
  /** The same question without the identifier or file name. */
  describe: string;
  file: string;
  name: string;
  /** How the model might misspell the name when it looks the definition up. */
  lookup: string;
}

const HARNESS_QUESTIONS: Question[] = [
  {
    ask:
      "Streamed tool call deltas arrive out of order from llama-server; where does the TurnAccumulator merge them?",
    file: "src/providers/openai_compat/stream_reader.ts",
    name: "TurnAccumulator",
    describe:
      "Streamed tool call pieces arrive split across chunks; where are they put back together?",
    lookup: "turnaccumulator",
  },
  {
    ask: "Why did evaluatePolicy let the last rule win for run_command?",
    file: "src/permissions/policy.ts",
    name: "evaluatePolicy",
    describe: "Which permission rule decides whether a tool call is allowed?",
    lookup: "evaluatePolicies",
  },
  {
    ask: "The tool output was cut in the middle; how does truncateMiddle choose head and tail?",
    file: "src/sandbox/workers/truncate_output.ts",
    name: "truncateMiddle",
    describe: "Long command output is cut to its head and tail; where?",
    lookup: "truncate_middle",
  },
  {
    ask: "A crashed session replays wrong: check replayEvents and the interrupted results.",
    file: "src/sessions/replay.ts",
    name: "replayEvents",
    describe: "How is a session's message list rebuilt from the event log after a crash?",
    lookup: "replayEvent",
  },
  {
    ask: "The gitignore negation rules do not match like git; look at GitignoreRules.",
    file: "src/tools/search/gitignore_rules.ts",
    name: "GitignoreRules",
    describe: "Ignore files with negated patterns are compiled and matched somewhere; where?",
    lookup: "GitIgnoreRules",
  },
  {
    ask: "How does effectivePermissions narrow the grants of a plugin worker?",
    file: "src/sandbox/grants/effective_permissions.ts",
    name: "effectivePermissions",
    describe: "How are the user's permission flags narrowed for one plugin's sandbox worker?",
    lookup: "effectivePermission",
  },
  {
    ask: "analyzeCommand splits 'git status && rm -rf x' wrongly; where is the splitter?",
    file: "src/shell/split_command.ts",
    name: "analyzeCommand",
    describe:
      "Shell commands with && and pipes are split into sub-commands for the permission check; where?",
    lookup: "analyseCommand",
  },
  {
    ask: "Broken JSON arguments from the model are repaired by repairArguments; how?",
    file: "src/agent/repair_arguments.ts",
    name: "repairArguments",
    describe: "Broken JSON in the model's tool arguments gets fixed up; where?",
    lookup: "repair_arguments",
  },
];

const OPENAI_QUESTIONS: Question[] = [
  {
    ask: "How long does the client wait between retries? calculateDefaultRetryTimeoutMillis",
    file: "src/client.ts",
    name: "calculateDefaultRetryTimeoutMillis",
    describe: "How long does the client wait before it retries a failed request?",
    lookup: "calculateRetryTimeout",
  },
  {
    ask: "Where is a 429 turned into RateLimitError?",
    file: "src/core/error.ts",
    name: "RateLimitError",
    describe: "Which error class stands for HTTP status 429?",
    lookup: "ratelimiterror",
  },
  {
    ask: "How does Stream iterate server-sent events?",
    file: "src/core/streaming.ts",
    name: "Stream",
    describe: "How are server-sent events iterated as an async iterable?",
    lookup: "Streams",
  },
  {
    ask: "LineDecoder splits chunks on newlines; where is it?",
    file: "src/internal/decoders/line.ts",
    name: "LineDecoder",
    describe: "Where are byte chunks split into lines?",
    lookup: "LinesDecoder",
  },
  {
    ask: "How does toFile wrap a Buffer for uploads?",
    file: "src/internal/to-file.ts",
    name: "toFile",
    describe: "How is a Buffer or a stream wrapped into a file for uploads?",
    lookup: "to_file",
  },
  {
    ask: "CursorPage pagination: how is the next page requested?",
    file: "src/core/pagination.ts",
    name: "CursorPage",
    describe: "How does cursor-based pagination fetch the next page?",
    lookup: "cursorpage",
  },
  {
    ask: "What does AzureOpenAI change in the base URL and the api-version?",
    file: "src/azure.ts",
    name: "AzureOpenAI",
    describe: "What changes for Azure deployments: the base URL and the api-version?",
    lookup: "AzureOpenAi",
  },
  {
    ask: "zodResponseFormat builds the json_schema response format from a zod object",
    file: "src/helpers/zod.ts",
    name: "zodResponseFormat",
    describe: "How is a structured-output response format built from a zod schema?",
    lookup: "zodResponseFmt",
  },
];

async function measureRecall(
  label: string,
  workspace: string,
  questions: Question[],
  dataDir: string,
  asked: "ask" | "describe",
): Promise<void> {
  let question = "";
  const tools = new CodeTools({
    workspace,
    grants: grantsFor(workspace),
    dataDir,
    contextWindow: () => 8192,
    recentText: () => question,
  });
  const hits = { map5: 0, map10: 0, mapAny: 0, def1: 0, def5: 0 };
  let mapTokens = 0;
  let fileTokens = 0;
  let listedFileTokens = 0;
  for (const q of questions) {
    question = q[asked];
    const run = await tools.run("code_map", {}, {});
    const map = run.result.data ?? "";
    const files = map.split("\n").filter((line) =>
      line !== "" && !line.startsWith(" ") && !line.startsWith("(")
    );
    const position = files.indexOf(q.file);
    const lines = map.split("\n");
    const from = lines.indexOf(q.file);
    const section = from < 0 ? [] : lines.slice(from + 1);
    const end = section.findIndex((line) => !line.startsWith(" "));
    const showsName = (end < 0 ? section : section.slice(0, end))
      .some((line) => new RegExp(`\\b${q.name}\\b`).test(line));
    if (position >= 0 && position < 5) hits.map5++;
    if (position >= 0 && position < 10) hits.map10++;
    if (position >= 0 && showsName) hits.mapAny++;
    mapTokens += Math.ceil(map.length / 4);
    fileTokens += Math.ceil((await Deno.readTextFile(join(workspace, q.file))).length / 4);
    for (const f of files.slice(0, 5)) {
      listedFileTokens += Math.ceil((await Deno.readTextFile(join(workspace, f))).length / 4);
    }
    const defs = await tools.run("find_definition", { name: q.lookup }, {});
    const found = (defs.result.data ?? "").split("\n").slice(1);
    const at = found.findIndex((line) => line.startsWith(`${q.file}:`) && line.includes(q.name));
    if (at === 0) hits.def1++;
    if (at >= 0 && at < 5) hits.def5++;
  }
  tools.close();
  const n = questions.length;
  const pct = (x: number) => `${Math.round((100 * x) / n)}%`;
  console.log(
    `${label.padEnd(8)} ${n} questions (${
      asked === "ask" ? "naming" : "describing"
    } it) | code_map (default budget ${Math.floor(8192 / 10)} tokens): file in top 5 ${
      pct(hits.map5)
    }, top 10 ${pct(hits.map10)}, definition shown ${
      pct(hits.mapAny)
    } | find_definition (misspelt): @1 ${pct(hits.def1)}, @5 ${pct(hits.def5)}`,
  );
  console.log(
    `${"".padEnd(8)} tokens per question: code_map ${Math.round(mapTokens / n)}, ` +
      `the answer's file whole ${Math.round(fileTokens / n)}, the map's top 5 files whole ${
        Math.round(listedFileTokens / n)
      } (${(listedFileTokens / Math.max(mapTokens, 1)).toFixed(1)}x the map)`,
  );
}

/** A conversation that asked `ask` and read `path`, with no room left: always curated. */
function sidePrefixFor(path: string, ask: string): SidePrefix {
  return {
    messages: [
      { kind: "user", content: ask },
      { kind: "assistant", content: "", data: {} },
      toolCallMessage({ id: "c1", name: "read_file", arguments: JSON.stringify({ path }) }),
    ],
    tools: [],
    callId: "c1",
    room: 0,
    tokens: (text) => Math.ceil(text.length / 4),
  };
}

/** read_file's plain output for a file (numbered lines, as the tool prints them). */
function numberedRead(text: string): string {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const width = String(lines.length).length;
  return lines.map((line, i) => `${String(i + 1).padStart(width)}: ${line}`).join("\n");
}

/**
 * Tokens of a curated read against the plain read of each question's file (100+ lines), the
 * curator answering with the range of the definition the question is about; then the time of
 * a cache miss (a side request to a loopback OpenAI-compatible server that answers at once, so
 * a lower bound: a real model takes seconds) against a cache hit.
 */
async function measureCurator(root: string, workspace: string, questions: Question[]) {
  const store = GraphStore.open(join(root, "curator.db"));
  const indexed = await indexWorkspace({ workspace, grants: grantsFor(workspace), store });
  let plainTokens = 0;
  let curatedTokens = 0;
  let files = 0;
  for (const q of questions) {
    const plain = numberedRead(await Deno.readTextFile(join(workspace, q.file)));
    if (plain.split("\n").length < 100) continue;
    const outline = store.definitionsIn(q.file);
    const target = outline.find((d) => d.name === q.name);
    if (!target) continue;
    const provider = new ScriptedProvider([
      answer(JSON.stringify({ ranges: [[target.line, target.endLine]] })),
    ]);
    const curated = await curateRead(q.file, plain, {
      provider,
      store,
      outline,
      contextText: `tokens ${q.ask}`,
      prefix: sidePrefixFor(q.file, q.ask),
    });
    if (curated.kind !== "curated") continue;
    files++;
    plainTokens += Math.ceil(plain.length / 4);
    curatedTokens += Math.ceil(curated.output.length / 4);
  }
  console.log(
    `curator: ${files} files of 100+ lines (${indexed.files} indexed): plain read ${
      Math.round(plainTokens / files)
    } tokens on average, curated ${Math.round(curatedTokens / files)} (${
      (plainTokens / curatedTokens).toFixed(1)
    }x fewer)`,
  );
  const q = questions[0]!;
  const plain = numberedRead(await Deno.readTextFile(join(workspace, q.file)));
  const outline = store.definitionsIn(q.file);
  const rounds = 20;
  await using server = startFakeLlmServer(
    Array.from({ length: rounds + 1 }, () => reply().text('{"ranges": [[1, 40]]}')),
  );
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const timeOne = async (contextText: string) => {
    const started = performance.now();
    const curated = await curateRead(q.file, plain, {
      provider,
      store,
      outline,
      contextText,
      prefix: sidePrefixFor(q.file, q.ask),
    });
    if (curated.kind !== "curated") throw new Error(`curator fell back: ${curated.reason}`);
    return performance.now() - started;
  };
  await timeOne("warm-up");
  const misses: number[] = [];
  const hits: number[] = [];
  for (let i = 0; i < rounds; i++) {
    misses.push(await timeOne(`question ${i}`));
    hits.push(await timeOne(`question ${i}`));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `curator cache: miss ${median(misses).toFixed(2)} ms (loopback server answering at once), ` +
      `hit ${median(hits).toFixed(2)} ms: ${(median(misses) / median(hits)).toFixed(0)}x`,
  );
  store.close();
}

async function main(): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "harness_index_bench_" });
  try {
    const tree = join(root, "tree");
    await copyTree(OPENAI, join(tree, "a"));
    await copyTree(OPENAI, join(tree, "b"));
    await copyTree(OPENAI, join(tree, "c"));
    const store = GraphStore.open(join(root, "tree.db"));
    const grants = grantsFor(tree);
    const cold = await indexWorkspace({ workspace: tree, grants, store });
    const counts = store.counts();
    console.log(
      `cold index: ${cold.files} files in ${(cold.elapsedMs / 1000).toFixed(2)} s = ${
        Math.round(cold.files / (cold.elapsedMs / 1000))
      } files/s (${counts.definitions} definitions, ${counts.references} references)`,
    );
    const warm = await indexWorkspace({ workspace: tree, grants, store });
    console.log(`warm, nothing changed: ${warm.elapsedMs.toFixed(0)} ms`);
    const edited = join(tree, "a/src/client.ts");
    await Deno.writeTextFile(
      edited,
      `${await Deno.readTextFile(edited)}\nexport function added() {}\n`,
    );
    const one = await indexWorkspace({ workspace: tree, grants, store });
    console.log(`warm, one file edited: ${one.elapsedMs.toFixed(0)} ms (${one.parsed} parsed)`);
    const only = await indexWorkspace({
      workspace: tree,
      grants,
      store,
      only: ["a/src/client.ts"],
    });
    console.log(`after a tool wrote one file (only that file): ${only.elapsedMs.toFixed(0)} ms`);
    store.close();

    const openaiSrc = join(root, "openai");
    await copyTree(join(OPENAI, "src"), join(openaiSrc, "src"));
    await measureCurator(root, REPO, HARNESS_QUESTIONS);
    for (const asked of ["ask", "describe"] as const) {
      await measureRecall("harness", REPO, HARNESS_QUESTIONS, join(root, "data"), asked);
      await measureRecall("openai", openaiSrc, OPENAI_QUESTIONS, join(root, "data"), asked);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) await main();
