// The import graph of a Deno project as `deno info --json` reports it, and the checks the
// architecture test runs on it: import cycles among project files and among rooms, and
// imports against the order of rooms the house style sets (HOUSE_STYLE.md, section 1).

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
 * Folders of src/ whose folders are rooms of their own, ordered among themselves: the sandbox
 * splits by what it confines (grants/, commands/, processes/, workers/).
 */
export const WINGS: ReadonlySet<string> = new Set(["sandbox"]);

/**
 * The room a project file lives in: `src/<room>/...` gives the room (`src/<wing>/<room>/...`
 * gives `<wing>/<room>` in a wing), `src/messages.ts` and `src/errors.ts` are "neutral",
 * `main.ts` is "main", `plugins/*.ts` is "builtin_tools".
 */
export function roomOf(file: string): string {
  if (file === "main.ts") return "main";
  if (file === "src/messages.ts" || file === "src/errors.ts") return "neutral";
  const parts = file.split("/");
  if (parts[0] === "plugins") return "builtin_tools";
  if (parts[0] === "src" && WINGS.has(parts[1]!) && parts.length > 3) {
    return `${parts[1]}/${parts[2]}`;
  }
  if (parts[0] === "src" && parts.length > 2) return parts[1]!;
  return `other:${file}`;
}

/**
 * The rooms from the ground up: a room imports only rooms below it (and itself). The neutral
 * types and platform/'s leaf helpers at the bottom; the model providers; config/ (settings and
 * folders, the trust stores); checkpoints (the shadow git repository) and hooks (Claude Code's
 * hook protocol); the tools' definitions; the shell-command analyser (shell/) and the policy
 * it serves; the agent and skill files users have; the plugin loader; the sandbox, from the
 * grants up through the command sandbox and the processes tools start to the tool workers;
 * the built-in tools; the code graph and MCP; the agent loop and the session log that records
 * it; what a user's turn brings in (turn_input/: mentions, images, custom commands,
 * instructions, the skills' turn stage); app/, which assembles a run; then the terminal (ui/)
 * and the two front ends, and main.ts.
 */
export const ROOM_ORDER: readonly string[] = [
  "neutral",
  "platform",
  "gate",
  "providers",
  "config",
  "jobs",
  "checkpoints",
  "hooks",
  "tools",
  "shell",
  "permissions",
  "agents",
  "skills",
  "plugin_loader",
  "sandbox/grants",
  "sandbox/commands",
  "sandbox/processes",
  "sandbox/workers",
  "builtin_tools",
  "code_index",
  "diagnostics",
  "mcp",
  "agent",
  "sessions",
  "turn_input",
  "app",
  "ui",
  "acp",
  "cli",
  "main",
];

/** The front ends: neither imports the other, and only cli/ uses the terminal room, ui/. */
const FRONT_ENDS: Record<string, readonly string[]> = {
  cli: ["acp"],
  acp: ["cli", "ui"],
};

/**
 * Why an import from one room to another breaks the layout, or `undefined` when it is allowed:
 * every room imports only rooms below it in {@linkcode ROOM_ORDER}, and no front end imports
 * another (nor acp/ the terminal's ui/).
 */
export function roomProblem(
  fromRoom: string,
  toRoom: string,
  order: readonly string[] = ROOM_ORDER,
): string | undefined {
  if (fromRoom === toRoom) return undefined;
  if (fromRoom.startsWith("other:") || toRoom.startsWith("other:")) {
    return "every source file lives in a room (src/<room>/, or src/<wing>/<room>/), except " +
      "messages.ts and errors.ts";
  }
  if (FRONT_ENDS[fromRoom]?.includes(toRoom)) {
    return `the front end ${fromRoom}/ never imports ${toRoom}/`;
  }
  const from = order.indexOf(fromRoom);
  const to = order.indexOf(toRoom);
  if (from < 0 || to < 0) {
    return `room ${from < 0 ? fromRoom : toRoom} has no place in the order of rooms`;
  }
  if (to > from) return `${toRoom}/ stands above ${fromRoom}/ in the order of rooms`;
  return undefined;
}

/** The rooms each room imports (imports within a room and of JSON files left out). */
export function roomGraph(graph: ModuleGraph): ModuleGraph {
  const rooms: ModuleGraph = new Map();
  for (const [from, targets] of graph) {
    if (from.endsWith(".json")) continue;
    const room = roomOf(from);
    const out = rooms.get(room) ?? new Set<string>();
    rooms.set(room, out);
    for (const to of targets) {
      if (!to.endsWith(".json") && roomOf(to) !== room) out.add(roomOf(to));
    }
  }
  return rooms;
}

/** Every import in `graph` that {@linkcode roomProblem} rejects, as readable lines. */
export function roomViolations(graph: ModuleGraph, order?: readonly string[]): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const problem = roomProblem(roomOf(from), roomOf(to), order);
      if (problem && !to.endsWith(".json")) found.push(`${from} -> ${to}: ${problem}`);
    }
  }
  return found.sort();
}

/**
 * The modules `entry` loads before it runs: its static code imports, followed transitively
 * (type-only and dynamic imports left out). Project files are relative paths; others
 * (`node:sqlite`, `npm:/zod@...`) are as `deno info` names them.
 */
export async function staticImports(root: string, entry: string): Promise<Set<string>> {
  const args = ["info", "--json", "--config", join(root, "deno.json"), join(root, entry)];
  const out = await new Deno.Command(Deno.execPath(), { args, cwd: root, stderr: "piped" })
    .output();
  if (!out.success) throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr)}`);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string; dependencies?: StaticDep[] }[];
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const prefix = pathToFileURL(root).href.replace(/\/?$/, "/");
  const seen = new Set<string>();
  const stack = [pathToFileURL(join(root, entry)).href];
  while (stack.length > 0) {
    const specifier = stack.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
      const target = dep.isDynamic ? undefined : dep.code?.specifier;
      if (target) stack.push(target);
    }
  }
  return new Set(
    [...seen].map((s) => s.startsWith(prefix) ? s.slice(prefix.length) : s),
  );
}

interface StaticDep {
  code?: Dep;
  isDynamic?: boolean;
}
