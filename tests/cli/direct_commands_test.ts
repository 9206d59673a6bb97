// `harness tool NAME JSON` loads only what one call needs: the session log (SQLite), the
// model providers' clients and MCP stay out of its module graph, and run_cli.ts reaches it
// without dispatch_command.ts (whose literal imports prepare every other command's graph).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliSandbox } from "../helpers/run_cli.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface InfoModule {
  specifier: string;
  dependencies?: { isDynamic?: boolean; code?: { specifier?: string } }[];
}

/**
 * The modules `deno run` evaluates when `entry` is imported (`dynamic` false) or prepares
 * with it (`dynamic` true: literal dynamic imports too). Type-only imports are left out.
 */
async function runtimeGraph(entry: string, dynamic: boolean): Promise<Set<string>> {
  const args = ["info", "--json", "--config", join(ROOT, "deno.json"), join(ROOT, entry)];
  const out = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stderr: "piped" })
    .output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: InfoModule[];
    redirects?: Record<string, string>;
  };
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const todo = [...info.roots];
  while (todo.length > 0) {
    const raw = todo.pop()!;
    const specifier = info.redirects?.[raw] ?? raw;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (dep.isDynamic && !dynamic) continue;
      if (dep.code?.specifier) todo.push(dep.code.specifier);
    }
  }
  return new Set([...seen].map((s) => s.replace(`file://${ROOT}`, "")));
}

function matching(modules: Set<string>, patterns: RegExp[]): string[] {
  return [...modules].filter((m) => patterns.some((p) => p.test(m))).sort();
}

Deno.test("harness tool evaluates no session log, SQLite, provider client or MCP module", async () => {
  const evaluated = await runtimeGraph("src/cli/direct_commands.ts", false);
  assert(evaluated.has("src/sandbox/tool_host.ts"), "the graph was read");
  assertEquals(
    matching(evaluated, [
      /^node:sqlite$/,
      /^src\/sessions\//,
      /^src\/mcp\//,
      /modelcontextprotocol/,
      /^src\/app\/open_run\.ts$/,
      /^src\/app\/open_provider\.ts$/,
      /^src\/providers\/openai\//,
      /^src\/code_index\/graph_store\.ts$/,
    ]),
    [],
  );
});

Deno.test("harness tool prepares no session log or MCP module", async () => {
  const prepared = await runtimeGraph("src/cli/direct_commands.ts", true);
  assertEquals(
    matching(prepared, [/^src\/sessions\//, /^src\/mcp\//, /modelcontextprotocol/, /npm:\/openai/]),
    [],
  );
});

Deno.test("run_cli reaches harness tool without dispatch_command.ts", async () => {
  await using cli = await cliSandbox();
  const out = await cli.run(["tool", "get_working_directory", "{}"], {
    env: { HARNESS_TRACE_STARTUP: "1" },
  });
  assertEquals(out.code, 0, out.stderr);
  assertEquals(JSON.parse(out.stdout).data, await Deno.realPath(cli.cwd));
  assert(out.stderr.includes("direct_commands.ts imported"), out.stderr);
  assert(!out.stderr.includes("dispatch_command.ts imported"), out.stderr);
});
