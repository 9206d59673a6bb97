// The import graph of a Deno project as `deno info --json` reports it, and the checks the
// architecture test runs on it: import cycles among project files, and imports against the
// direction the house style sets (HOUSE_STYLE.md, section 1).

import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Project file (relative path, forward slashes) -> the project files it imports. */
export type ModuleGraph = Map<string, Set<string>>;

/**
 * Reads the import graph of every file in `files` (static and literal dynamic imports, type
 * imports included) with `deno info --json`, keeping only edges between files under `root`.
 */
export async function readModuleGraph(
  root: string,
  files: readonly string[],
): Promise<ModuleGraph> {
  const dir = await Deno.makeTempDir({ prefix: "harness_graph_" });
  try {
    const entry = join(dir, "all.ts");
    const lines = files.map((f) => `import ${JSON.stringify(pathToFileURL(join(root, f)).href)};`);
    await Deno.writeTextFile(entry, lines.join("\n") + "\n");
    const args = ["info", "--json", "--config", join(root, "deno.json"), entry];
    const out = await new Deno.Command(Deno.execPath(), { args, cwd: root, stderr: "piped" })
      .output();
    if (!out.success) throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr)}`);
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: { specifier: string; dependencies?: { code?: Dep; type?: Dep }[] }[];
    };
    const prefix = pathToFileURL(root).href.replace(/\/?$/, "/");
    const graph: ModuleGraph = new Map();
    for (const module of info.modules) {
      if (!module.specifier.startsWith(prefix)) continue;
      const from = module.specifier.slice(prefix.length);
      const targets = new Set<string>();
      for (const dep of module.dependencies ?? []) {
        for (const d of [dep.code, dep.type]) {
          if (d?.specifier?.startsWith(prefix)) targets.add(d.specifier.slice(prefix.length));
        }
      }
      graph.set(from, targets);
    }
    return graph;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

interface Dep {
  specifier?: string;
}

/** Lists the `.ts` files under `folder` (relative to `root`), recursively, sorted. */
export function listTsFiles(root: string, folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(join(root, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && entry.name.endsWith(".ts")) found.push(path);
    }
  };
  walk(folder);
  return found.sort();
}

/** The import cycles: each strongly connected set of two or more files (or a self-import). */
export function findCycles(graph: ModuleGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/**
 * The room a project file lives in: `src/<room>/...` gives the room, `src/messages.ts` and
 * `src/errors.ts` are "neutral", `main.ts` is "main", `plugins/*.ts` is "builtin_tools".
 */
export function roomOf(file: string): string {
  if (file === "main.ts") return "main";
  if (file === "src/messages.ts" || file === "src/errors.ts") return "neutral";
  const parts = file.split("/");
  if (parts[0] === "plugins") return "builtin_tools";
  if (parts[0] === "src" && parts.length > 2) return parts[1]!;
  return `other:${file}`;
}

const FRONT_ENDS = new Set(["main", "cli", "ui", "acp"]);
const CORE = new Set([
  "tools",
  "permissions",
  "sandbox",
  "sessions",
  "plugins",
  "mcp",
  "code_index",
  "config",
  "platform",
  "providers",
  "builtin_tools",
]);

/**
 * Why an import from one room to another goes against the house style's direction, or
 * `undefined` when it is allowed: front ends (cli/, ui/, acp/, main.ts) -> agent/ -> the rest;
 * only front ends import cli/, ui/ and acp/; nothing below the agent imports agent/ except
 * sessions/, which records its events; providers/ import only neutral types, platform/ and
 * each other; platform/ and the neutral types import nothing above them.
 */
export function directionProblem(fromRoom: string, toRoom: string): string | undefined {
  if (fromRoom === toRoom) return undefined;
  if (fromRoom === "neutral") return "messages.ts and errors.ts import nothing from the project";
  if (fromRoom === "platform" && toRoom !== "neutral") {
    return "platform/ holds leaf helpers and imports only messages.ts and errors.ts";
  }
  if ((toRoom === "cli" || toRoom === "ui" || toRoom === "acp") && !FRONT_ENDS.has(fromRoom)) {
    return `only the front ends (main.ts, cli/, ui/, acp/) import ${toRoom}/`;
  }
  if (toRoom === "main") return "nothing imports main.ts";
  if (fromRoom === "agent" && toRoom === "sessions") {
    return "the agent records through agent/session_recorder.ts and never imports sessions/";
  }
  if (toRoom === "agent" && CORE.has(fromRoom) && fromRoom !== "sessions") {
    return `${fromRoom}/ is below the agent and must not import agent/`;
  }
  if (fromRoom === "providers" && !["neutral", "platform"].includes(toRoom)) {
    return `providers/ never import ${toRoom}/ (only messages.ts, errors.ts and platform/)`;
  }
  if (fromRoom.startsWith("other:") || toRoom.startsWith("other:")) {
    return "every source file lives in a room (src/<room>/), except messages.ts and errors.ts";
  }
  return undefined;
}

/** Every import in `graph` that {@linkcode directionProblem} rejects, as readable lines. */
export function directionViolations(graph: ModuleGraph): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const problem = directionProblem(roomOf(from), roomOf(to));
      if (problem && !to.endsWith(".json")) found.push(`${from} -> ${to}: ${problem}`);
    }
  }
  return found.sort();
}
