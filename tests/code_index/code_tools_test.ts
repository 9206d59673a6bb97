// The code tools over a real index: answers, fuzzy lookups, the token budget, and the read
// grant applied again at query time.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { CodeTools } from "../../src/code_index/code_tools.ts";
import { type Grants } from "../../src/sandbox/grants/grants.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";

function grantsFor(flags: string[], cwd: string): Grants {
  const parsed = parseGrantFlags(flags, { cwd });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value.grants;
}

async function project(): Promise<{ dir: string; data: string } & AsyncDisposable> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_codetools_" }));
  const dir = `${root}/work`;
  await Deno.mkdir(`${dir}/src`, { recursive: true });
  await Deno.mkdir(`${dir}/private`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/src/config.ts`,
    "export interface AppConfig { port: number }\n\nexport function loadConfig(): AppConfig {\n  return { port: 1 };\n}\n",
  );
  await Deno.writeTextFile(
    `${dir}/src/server.ts`,
    'import { loadConfig } from "./config.ts";\n\nexport function startServer() {\n  const c = loadConfig();\n  return c.port;\n}\n',
  );
  await Deno.writeTextFile(`${dir}/private/keys.ts`, "export function secretLoader() {}\n");
  return {
    dir,
    data: `${root}/data`,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }).catch(() => {}),
  };
}

async function call(tools: CodeTools, name: string, args: Record<string, unknown>) {
  const valid = tools.validate(name, args);
  if (!valid.ok) throw new Error(valid.error.join("; "));
  const run = await tools.run(name, valid.value, {});
  assert(run.result.success, run.result.error_message ?? "");
  return run.result.data ?? "";
}

Deno.test("find_definition answers exact, case-insensitive and fuzzy lookups", async () => {
  await using p = await project();
  const tools = new CodeTools({
    workspace: p.dir,
    grants: grantsFor(["--allow-read=."], p.dir),
    dataDir: p.data,
  });
  try {
    match(
      await call(tools, "find_definition", { name: "loadConfig" }),
      /^1 match for "loadConfig"\nsrc\/config.ts:3: export function loadConfig\(\): AppConfig \{$/,
    );
    match(
      await call(tools, "find_definition", { name: "loadconfig" }),
      /case-insensitive match.*\nsrc\/config.ts:3:/,
    );
    match(
      await call(tools, "find_definition", { name: "loadConfg" }),
      /fuzzy match.*\nsrc\/config.ts:3:/,
    );
    match(
      await call(tools, "find_definition", { name: "AppConfig", kind: "interface" }),
      /src\/config.ts:1:/,
    );
    match(
      await call(tools, "find_definition", { name: "nothingLikeThis" }),
      /^No definition of "nothingLikeThis" found$/,
    );
  } finally {
    tools.close();
  }
});

Deno.test("find_references lists the lines that use a name", async () => {
  await using p = await project();
  const tools = new CodeTools({
    workspace: p.dir,
    grants: grantsFor(["--allow-read=."], p.dir),
    dataDir: p.data,
  });
  try {
    assertEquals(
      await call(tools, "find_references", { name: "loadConfig" }),
      '1 reference to "loadConfig"\nsrc/server.ts:4: const c = loadConfig();',
    );
  } finally {
    tools.close();
  }
});

Deno.test("code_map outlines the workspace within its token budget", async () => {
  await using p = await project();
  const tools = new CodeTools({
    workspace: p.dir,
    grants: grantsFor(["--allow-read=."], p.dir),
    dataDir: p.data,
  });
  try {
    const map = await call(tools, "code_map", { path: "src" });
    assert(map.startsWith("src/config.ts\n"), map);
    match(map, / {2}3-5: export function loadConfig\(\): AppConfig \{/);
    assert(!map.includes("private/"), map);
    const many = Array.from({ length: 40 }, (_, i) => `export function generated${i}() {}`);
    await Deno.writeTextFile(`${p.dir}/src/many.ts`, many.join("\n"));
    const small = await call(tools, "code_map", { max_tokens: 64 });
    assert(small.length < 64 * 4 + 80, small);
    match(small, /more definitions left out for the budget/);
  } finally {
    tools.close();
  }
});

Deno.test("code tools hide what an earlier, wider grant indexed", async () => {
  await using p = await project();
  const wide = new CodeTools({
    workspace: p.dir,
    grants: grantsFor(["--allow-read=."], p.dir),
    dataDir: p.data,
  });
  match(await call(wide, "find_definition", { name: "secretLoader" }), /private\/keys.ts:1:/);
  wide.close();
  // Same index database, narrower flags: the private folder must not show.
  const narrow = new CodeTools({
    workspace: p.dir,
    grants: grantsFor(["--allow-read=.", "--deny-read=private"], p.dir),
    dataDir: p.data,
  });
  try {
    const found = await call(narrow, "find_definition", { name: "secretLoader" });
    assert(!found.includes("private/"), found);
    const map = await call(narrow, "code_map", {});
    assert(!map.includes("secretLoader"), map);
  } finally {
    narrow.close();
  }
});

Deno.test("CodeTools offers nothing without a read grant on the workspace", () => {
  const tools = new CodeTools({
    workspace: "/w",
    grants: grantsFor(["--allow-read=/elsewhere"], "/w"),
    dataDir: "/tmp/x",
  });
  assertEquals(tools.list().length, 0);
});

Deno.test("CodeTools.validate() rejects unknown and missing arguments", () => {
  const tools = new CodeTools({
    workspace: "/w",
    grants: grantsFor(["--allow-read=/w"], "/w"),
    dataDir: "/tmp/x",
  });
  const missing = tools.validate("find_definition", {});
  assert(!missing.ok && missing.error.join().includes('"name" is required'));
  const unknown = tools.validate("code_map", { paht: "x" });
  assert(!unknown.ok && unknown.error.join().includes('unknown argument "paht"'));
  const budget = tools.validate("code_map", { max_tokens: 3 });
  assert(!budget.ok);
});
