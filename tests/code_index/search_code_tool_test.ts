// search_code over a real index and a scripted embedding server: offered only with an embedding
// model, finds definitions by their words, embeds each definition once and only what changed,
// and never sends (or shows) what the read grant hides now, even when an earlier run with wider
// flags indexed it.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { CodeTools } from "../../src/code_index/code_tools.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { createEmbedder, type EmbeddingApi } from "../../src/providers/embeddings/embedder.ts";
import type { Grants } from "../../src/sandbox/grants/grants.ts";
import {
  type FakeEmbeddingServer,
  startFakeEmbeddingServer,
} from "../helpers/fake_embedding_server.ts";

function grantsFor(flags: string[], cwd: string): Grants {
  const parsed = parseGrantFlags(flags, { cwd });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value.grants;
}

const SECRET = "hunter2-launch-codes";

async function project(): Promise<{ dir: string; data: string } & AsyncDisposable> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_search_code_" }));
  const dir = `${root}/work`;
  await Deno.mkdir(`${dir}/src`, { recursive: true });
  await Deno.mkdir(`${dir}/private`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/src/retry.ts`,
    "// Waits longer after each failed request before trying again.\n" +
      "export function backoffDelay(attempt: number): number {\n  return 2 ** attempt * 100;\n}\n",
  );
  await Deno.writeTextFile(
    `${dir}/src/parse.ts`,
    "/** Splits a line of comma separated values into fields. */\n" +
      "export function splitFields(line: string): string[] {\n  return line.split(',');\n}\n",
  );
  await Deno.writeTextFile(
    `${dir}/private/keys.ts`,
    `// The launch codes for the request retry delay.\nexport function secretLoader() {\n  return "${SECRET}";\n}\n`,
  );
  return {
    dir,
    data: `${root}/data`,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }).catch(() => {}),
  };
}

function tools(
  p: { dir: string; data: string },
  server: FakeEmbeddingServer | undefined,
  flags = ["--allow-read=."],
  api: EmbeddingApi = "ollama",
): CodeTools {
  return new CodeTools({
    workspace: p.dir,
    grants: grantsFor(flags, p.dir),
    dataDir: p.data,
    ...(server
      ? {
        embedder: () =>
          Promise.resolve(createEmbedder({
            api,
            baseUrl: api === "ollama" ? server.root : `${server.root}/v1`,
            model: "nomic-embed-text",
          })),
      }
      : {}),
  });
}

/** No text of the private folder reached the embedding server. */
function assertNothingSent(server: FakeEmbeddingServer): void {
  const leaked = server.texts().filter((text) =>
    text.includes(SECRET) || text.includes("private/")
  );
  assertEquals(leaked, []);
}

async function search(code: CodeTools, args: Record<string, unknown>) {
  const valid = code.validate("search_code", args);
  if (!valid.ok) throw new Error(valid.error.join("; "));
  return await code.run("search_code", valid.value, {});
}

Deno.test("search_code is offered only once an embedding model is known", async () => {
  await using p = await project();
  await using server = startFakeEmbeddingServer();
  const without = tools(p, undefined);
  await without.ready();
  assert(!without.list().some((t) => t.name === "search_code"));
  assert(!without.entries().some((e) => e.info.name === "search_code"));
  without.close();
  const none = new CodeTools({
    workspace: p.dir,
    grants: grantsFor(["--allow-read=."], p.dir),
    dataDir: p.data,
    embedder: () => Promise.resolve(undefined),
  });
  await none.ready();
  assert(!none.entries().some((e) => e.info.name === "search_code"));
  none.close();
  const withModel = tools(p, server);
  await withModel.ready();
  assertEquals(withModel.list().map((t) => t.name), [
    "code_map",
    "find_definition",
    "find_references",
    "search_code",
  ]);
  assertEquals(withModel.validate("search_code", { query: "x", limit: 31 }), {
    ok: false,
    error: ['"limit" must be a whole number from 1 to 30'],
  });
  withModel.close();
});

Deno.test("search_code finds a definition by the words of its comment and body", async () => {
  await using p = await project();
  await using server = startFakeEmbeddingServer();
  const code = tools(p, server, ["--allow-read=.", "--deny-read=private"]);
  await code.ready();
  try {
    const run = await search(code, { query: "wait longer before trying a failed request again" });
    assert(run.result.success, run.result.error_message ?? "");
    const lines = (run.result.data ?? "").split("\n");
    match(lines[0]!, /^2 definitions closest to "wait longer.*" \(of 2, by nomic-embed-text/);
    match(
      lines[1]!,
      /^src\/retry.ts:2-4: export function backoffDelay\(attempt: number\): number \{ {2}\(0\.\d\d\)$/,
    );
    match(run.display ?? "", /embedded 2 new definitions/);
    // The query and both visible definitions were embedded, in two requests.
    assertEquals(server.requests.map((r) => r.texts.length), [2, 1]);
    const scoped = await search(code, {
      query: "split comma separated fields",
      path: "src/parse.ts",
    });
    assertEquals((scoped.result.data ?? "").split("\n").length, 2);
  } finally {
    code.close();
  }
});

Deno.test("search_code embeds each definition once and, after an edit, only what changed", async () => {
  await using p = await project();
  await using server = startFakeEmbeddingServer();
  const code = tools(p, server, ["--allow-read=.", "--deny-read=private"]);
  await code.ready();
  try {
    await search(code, { query: "retry" });
    const first = server.texts().length;
    await search(code, { query: "fields" });
    assertEquals(server.texts().length, first + 1, "the second search embeds the query only");
    await Deno.writeTextFile(
      `${p.dir}/src/parse.ts`,
      "/** Splits a line of tab separated values into fields. */\n" +
        "export function splitFields(line: string): string[] {\n  return line.split('\\t');\n}\n",
    );
    await search(code, { query: "tabs" });
    const sent = server.texts().slice(first + 1);
    assertEquals(sent.length, 2, JSON.stringify(sent));
    match(sent[0]!, /^src\/parse.ts\n\/\*\* Splits a line of tab separated values/);
  } finally {
    code.close();
  }
});

Deno.test("search_code never sends a --deny-read file to the embedding server, nor shows it", async () => {
  await using p = await project();
  await using server = startFakeEmbeddingServer();
  const code = tools(p, server, ["--allow-read=.", "--deny-read=private"]);
  await code.ready();
  try {
    const run = await search(code, { query: "launch codes request retry delay", limit: 30 });
    assert(run.result.success, run.result.error_message ?? "");
    assert(!(run.result.data ?? "").includes("private/"), run.result.data ?? "");
    assertNothingSent(server);
  } finally {
    code.close();
  }
});

Deno.test("search_code does not send what an earlier run with wider flags indexed", async () => {
  await using p = await project();
  // An earlier run with the whole folder readable and no embedding model indexed private/.
  const wide = tools(p, undefined);
  const map = await wide.run("code_map", {}, {});
  match(map.result.data ?? "", /secretLoader/);
  wide.close();
  await using server = startFakeEmbeddingServer();
  const narrow = tools(p, server, ["--allow-read=.", "--deny-read=private"]);
  await narrow.ready();
  try {
    const run = await search(narrow, { query: "launch codes", limit: 30 });
    assert(run.result.success, run.result.error_message ?? "");
    assert(!(run.result.data ?? "").includes("private/"), run.result.data ?? "");
    assertNothingSent(server);
  } finally {
    narrow.close();
  }
  // And the other way: vectors made under wide flags are not shown under narrow ones.
  await using wideServer = startFakeEmbeddingServer();
  const wideAgain = tools(p, wideServer);
  await wideAgain.ready();
  match(
    (await search(wideAgain, { query: "launch codes", limit: 30 })).result.data ?? "",
    /private\/keys.ts/,
  );
  wideAgain.close();
  const narrowAgain = tools(p, wideServer, ["--allow-read=.", "--deny-read=private"]);
  await narrowAgain.ready();
  try {
    const run = await search(narrowAgain, { query: "launch codes", limit: 30 });
    assert(!(run.result.data ?? "").includes("private/"), run.result.data ?? "");
  } finally {
    narrowAgain.close();
  }
});

Deno.test("search_code reports an embedding server's failure to the model and keeps what it embedded", async () => {
  await using p = await project();
  let calls = 0;
  await using server = startFakeEmbeddingServer({
    answer: () => {
      calls++;
      return calls === 1
        ? new Response(JSON.stringify({ embeddings: [[1, 2]] }), { status: 200 })
        : undefined;
    },
  });
  const code = tools(p, server, ["--allow-read=.", "--deny-read=private"]);
  await code.ready();
  try {
    const broken = await search(code, { query: "retry" });
    assertEquals(broken.result.error_type, "io_error");
    match(
      broken.result.error_message ?? "",
      /expected 2 embeddings, got 1.*Use grep_search or find_definition instead/,
    );
    const fixed = await search(code, { query: "retry" });
    assert(fixed.result.success, fixed.result.error_message ?? "");
  } finally {
    code.close();
  }
});

Deno.test("search_code speaks the OpenAI-compatible route, and llama-server's /embedding without it", async () => {
  await using p = await project();
  await using openai = startFakeEmbeddingServer();
  const viaV1 = tools(p, openai, ["--allow-read=.", "--deny-read=private"], "openai");
  await viaV1.ready();
  assert((await search(viaV1, { query: "retry" })).result.success);
  viaV1.close();
  assertEquals([...new Set(openai.requests.map((r) => r.path))], ["/v1/embeddings"]);

  await using llama = startFakeEmbeddingServer({ v1: false, perToken: true });
  const viaNative = new CodeTools({
    workspace: p.dir,
    grants: grantsFor(["--allow-read=.", "--deny-read=private"], p.dir),
    dataDir: `${p.data}2`,
    embedder: () =>
      Promise.resolve(
        createEmbedder({ api: "openai", baseUrl: `${llama.root}/v1`, model: "nomic-embed-text" }),
      ),
  });
  await viaNative.ready();
  try {
    const run = await search(viaNative, { query: "wait longer before trying a failed request" });
    assert(run.result.success, run.result.error_message ?? "");
    match(run.result.data ?? "", /\nsrc\/retry.ts:2-4:/);
    assert(llama.requests.some((r) => r.path === "/embedding"));
  } finally {
    viaNative.close();
  }
});
