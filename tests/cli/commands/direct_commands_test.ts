// run_cli.ts reaches `harness tool` and `policy explain` without dispatch_command.ts, whose
// literal imports make Deno prepare every other command's module graph (MCP, code index,
// doctor), and direct_commands.ts's own graph, literal dynamic imports included, holds no
// session log or MCP module (direct_commands_imports_test.ts checks what it evaluates).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliSandbox } from "../../helpers/run_cli.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string } }[];
}

/**
 * The modules `deno run` prepares when `entry` is imported: its static and literal dynamic
 * imports, type-only imports left out.
 */
async function preparedGraph(entry: string): Promise<Set<string>> {
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
      if (dep.code?.specifier) todo.push(dep.code.specifier);
    }
  }
  return new Set([...seen].map((s) => s.replace(`file://${ROOT}`, "")));
}

function matching(modules: Set<string>, patterns: RegExp[]): string[] {
  return [...modules].filter((m) => patterns.some((p) => p.test(m))).sort();
}

Deno.test("harness tool prepares no session log or MCP module", async () => {
  const prepared = await preparedGraph("src/cli/commands/direct_commands.ts");
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
