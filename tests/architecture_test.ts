// The layout's rules, checked on the real module graph (`deno info --json`): no import cycles
// among project files, no import against the house style's direction, and nothing in src/'s
// root but the neutral types. Each rule is also shown to fail on a small graph that breaks it.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  directionProblem,
  directionViolations,
  findCycles,
  listTsFiles,
  type ModuleGraph,
  readModuleGraph,
} from "./helpers/module_graph.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

function projectFiles(): string[] {
  return [...listTsFiles(ROOT, "src"), ...listTsFiles(ROOT, "plugins"), "main.ts"];
}

function graphOf(edges: Record<string, string[]>): ModuleGraph {
  return new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));
}

Deno.test("architecture: the project's files import no cycle and nothing against the direction", async () => {
  const graph = await readModuleGraph(ROOT, projectFiles());
  assert(graph.size > 150, `deno info reported only ${graph.size} project modules`);
  assert(graph.get("src/cli/run_cli.ts")?.has("src/cli/args.ts"), "edges are read");
  assertEquals(findCycles(graph), []);
  assertEquals(directionViolations(graph), []);
});

Deno.test("architecture: src/ holds only messages.ts and errors.ts besides its rooms", () => {
  const loose = [...Deno.readDirSync(join(ROOT, "src"))].filter((e) => e.isFile).map((e) => e.name);
  assertEquals(loose.sort(), ["errors.ts", "messages.ts"]);
});

Deno.test("architecture: the checks find a cycle and upward imports when one is added back", async () => {
  // The real reader on a small project with a cycle through a type import.
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "src", "cli"), { recursive: true });
    await Deno.mkdir(join(dir, "src", "config"), { recursive: true });
    await Deno.writeTextFile(join(dir, "deno.json"), "{}");
    await Deno.writeTextFile(
      join(dir, "src", "config", "settings.ts"),
      'import type { Flags } from "../cli/args.ts";\nexport type S = Flags;\n',
    );
    await Deno.writeTextFile(
      join(dir, "src", "cli", "args.ts"),
      'import type { S } from "../config/settings.ts";\nexport type Flags = { a?: S };\n',
    );
    const graph = await readModuleGraph(dir, ["src/cli/args.ts", "src/config/settings.ts"]);
    assertEquals(findCycles(graph), [["src/cli/args.ts", "src/config/settings.ts"]]);
    assertEquals(directionViolations(graph), [
      "src/config/settings.ts -> src/cli/args.ts: only the front ends (main.ts, cli/, ui/, acp/) import cli/",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assertEquals(findCycles(graphOf({ "a.ts": ["a.ts"] })), [["a.ts"]]);
  assertEquals(findCycles(graphOf({ "a.ts": ["b.ts"], "b.ts": [] })), []);
});

Deno.test("architecture: the direction rules", () => {
  const rejected: [string, string][] = [
    ["providers", "tools"],
    ["providers", "sandbox"],
    ["providers", "agent"],
    ["tools", "agent"],
    ["sandbox", "ui"],
    ["agent", "cli"],
    ["agent", "sessions"],
    ["config", "cli"],
    ["platform", "config"],
    ["neutral", "platform"],
    ["builtin_tools", "agent"],
    ["mcp", "acp"],
  ];
  for (const [from, to] of rejected) {
    assert(directionProblem(from, to), `${from} -> ${to} should be rejected`);
  }
  const allowed: [string, string][] = [
    ["main", "cli"],
    ["cli", "agent"],
    ["ui", "agent"],
    ["acp", "cli"],
    ["agent", "tools"],
    ["agent", "providers"],
    ["sessions", "agent"],
    ["sandbox", "tools"],
    ["providers", "platform"],
    ["providers", "neutral"],
  ];
  for (const [from, to] of allowed) {
    assertEquals(directionProblem(from, to), undefined, `${from} -> ${to}`);
  }
});
