// The tool schema cache: what each plugin file exported (name, description, risk, JSON
// Schema, permissions, timeout), keyed by a content hash of the file and the local files it
// imports (paths and SHA-256). On a hit the tool host lists the tool without importing the
// plugin, so a restart does not re-import unchanged plugins. Stored as one JSON file under
// $XDG_CACHE_HOME/harness (or ~/.cache/harness); a broken file or entry is ignored and
// rewritten. Other processes can write that file, so the host never takes a built-in tool's
// risk from it (see src/plugin_loader/builtin_risks.ts). Each plugin's fingerprint is kept with the
// size and modification time of its files: while none changed, it is not computed again.

import { dirname, join } from "../platform/paths.ts";
import { cacheDir } from "../config/folders.ts";
import { settledBy } from "../platform/racy_stamp.ts";
import type { ToolInfo } from "../tools/tool_entry.ts";

/** A tool's public description as the cache keeps it. */
export type CachedToolInfo = Pick<
  ToolInfo,
  "name" | "description" | "risk" | "parameters" | "permissions" | "timeoutMs"
>;

interface CacheEntry {
  /** The plugin file the entry describes. */
  path: string;
  info: CachedToolInfo;
}

/** A file of a plugin's import graph as it was when the graph was fingerprinted. */
interface FileStamp {
  path: string;
  /** -1 for a file it imports that did not exist (its appearing changes the graph). */
  size: number;
  /** Modification time, ms since the epoch (-1 for a missing file). */
  mtime: number;
}

/** A plugin's fingerprint and the files it was computed from. */
interface GraphStamp {
  files: FileStamp[];
  fingerprint: string;
  /** When it was computed (ms): a file modified that close to it may change unseen. */
  at: number;
}

interface CacheFile {
  format: 2;
  /** Who wrote it (harness and Deno versions): another writer's schemas are not trusted. */
  writer: string;
  /** By fingerprint (content hash of the plugin and what it imports). */
  entries: Record<string, CacheEntry>;
  /** By plugin file: its last fingerprint, valid while its files' stamps are unchanged. */
  graphs?: Record<string, GraphStamp>;
}

/**
 * The cache file: `$XDG_CACHE_HOME/harness/tool_schemas.json`, else
 * `~/.cache/harness/tool_schemas.json`; `undefined` when no home folder is known.
 *
 * @example
 * ```ts
 * import { schemaCachePath } from "./schema_cache.ts";
 * if (schemaCachePath({ XDG_CACHE_HOME: "/c" }) !== "/c/harness/tool_schemas.json") throw new Error();
 * ```
 */
export function schemaCachePath(env: Record<string, string | undefined>): string | undefined {
  const base = cacheDir(env);
  return base ? join(base, "tool_schemas.json") : undefined;
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Fingerprints files by path and SHA-256 of their contents.
 *
 * @param paths The plugin file and the local files it imports.
 * @returns A hex digest, or `undefined` when a file cannot be read (nothing is cached then).
 *
 * @example
 * ```ts
 * import { fingerprintFiles } from "./schema_cache.ts";
 * const file = await Deno.makeTempFile();
 * const before = await fingerprintFiles([file]);
 * await Deno.writeTextFile(file, "changed");
 * if (before === await fingerprintFiles([file])) throw new Error();
 * if (await fingerprintFiles(["/nonexistent/x.ts"]) !== undefined) throw new Error();
 * ```
 */
export async function fingerprintFiles(paths: readonly string[]): Promise<string | undefined> {
  const parts: string[] = [];
  for (const path of [...paths].sort()) {
    try {
      const bytes = await Deno.readFile(path);
      parts.push(`${path}\0${hex(await crypto.subtle.digest("SHA-256", bytes))}`);
    } catch {
      return undefined;
    }
  }
  const joined = new TextEncoder().encode(parts.join("\n"));
  return hex(await crypto.subtle.digest("SHA-256", joined));
}

/** The schema cache of one run. Open it with {@linkcode SchemaCache.open}. */
export class SchemaCache {
  readonly #path: string | undefined;
  readonly #writer: string;
  #entries: Record<string, CacheEntry>;
  #graphs: Record<string, GraphStamp>;
  #dirty = false;

  /** Drops the entries and graphs of plugin files that are gone. */
  #dropRemoved(): void {
    const seen = new Map<string, boolean>();
    const gone = (path: string) => {
      let missing = seen.get(path);
      if (missing === undefined) seen.set(path, missing = stampNow(path).size < 0);
      return missing;
    };
    withoutRemoved(this.#entries, (_, entry) => entry.path, gone);
    withoutRemoved(this.#graphs, (path) => path, gone);
  }

  private constructor(
    path: string | undefined,
    writer: string,
    entries: CacheFile["entries"],
    graphs: Record<string, GraphStamp> = {},
  ) {
    this.#path = path;
    this.#writer = writer;
    this.#entries = entries;
    this.#graphs = graphs;
  }

  /**
   * Reads the cache file. A missing, unreadable or malformed file, or one written by another
   * harness or Deno version, gives an empty cache that `save` rewrites.
   *
   * @param path The cache file (`undefined`: an in-memory cache that is never saved).
   * @param writer Who is reading and will write (e.g. harness and Deno versions).
   *
   * @example
   * ```ts
   * import { SchemaCache } from "./schema_cache.ts";
   * const dir = await Deno.makeTempDir();
   * await Deno.writeTextFile(`${dir}/c.json`, "{ not json");
   * const plugin = `${dir}/t.ts`; // a plugin whose file is gone is not saved
   * await Deno.writeTextFile(plugin, "export {};\n");
   * const cache = await SchemaCache.open(`${dir}/c.json`, "v1");
   * const info = { name: "t", description: "d", risk: "safe" as const, parameters: { type: "object" } };
   * cache.store(plugin, "f1", info);
   * await cache.save();
   * const again = await SchemaCache.open(`${dir}/c.json`, "v1");
   * if (again.lookup(plugin, "f1")?.name !== "t" || again.lookup(plugin, "f2")) throw new Error();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  static async open(path: string | undefined, writer: string): Promise<SchemaCache> {
    if (path === undefined) return new SchemaCache(undefined, writer, {});
    try {
      const parsed: unknown = JSON.parse(await Deno.readTextFile(path));
      if (isCacheFile(parsed) && parsed.writer === writer) {
        return new SchemaCache(path, writer, parsed.entries, wellFormedGraphs(parsed.graphs));
      }
    } catch { /* missing or broken: start empty; save() rewrites it */ }
    const cache = new SchemaCache(path, writer, {});
    cache.#dirty = true;
    return cache;
  }

  /**
   * The fingerprint of a plugin and the local files it imports. While the size and
   * modification time of every file it was computed from are unchanged (and none was modified
   * close to its computation), the remembered one, without reading a file; otherwise
   * `compute` lists and hashes the files again and its answer is remembered.
   *
   * @param pluginPath The plugin file.
   * @param compute Lists the plugin's files (it first), those it imports that are missing,
   *   and fingerprints the files.
   * @returns The fingerprint, or undefined when a file cannot be read.
   *
   * @example
   * ```ts
   * import { fingerprintFiles, SchemaCache } from "./schema_cache.ts";
   * const file = await Deno.makeTempFile();
   * const cache = await SchemaCache.open(undefined, "v1");
   * let computed = 0;
   * const compute = async () => {
   *   computed++;
   *   return { files: [file], missing: [], fingerprint: await fingerprintFiles([file]) };
   * };
   * const first = await cache.fingerprint(file, compute);
   * await Deno.utime(file, new Date(0), new Date(0)); // as if written long ago
   * await cache.fingerprint(file, compute); // its time changed: computed again
   * await cache.fingerprint(file, compute); // unchanged since: remembered
   * if (computed !== 2 || first !== await fingerprintFiles([file])) throw new Error();
   * ```
   */
  async fingerprint(
    pluginPath: string,
    compute: () => Promise<
      { files: readonly string[]; missing: readonly string[]; fingerprint: string | undefined }
    >,
  ): Promise<string | undefined> {
    const known = Object.hasOwn(this.#graphs, pluginPath) ? this.#graphs[pluginPath] : undefined;
    if (known && stampsHold(known)) return known.fingerprint;
    const at = Date.now();
    const { files, missing, fingerprint } = await compute();
    const stamps = fingerprint === undefined ? undefined : await stampsOf(files);
    if (fingerprint === undefined || stamps === undefined) {
      if (known) {
        delete this.#graphs[pluginPath];
        this.#dirty = true;
      }
      return fingerprint;
    }
    const absent = missing.map((path) => ({ path, size: -1, mtime: -1 }));
    this.#graphs[pluginPath] = { files: [...stamps, ...absent], fingerprint, at };
    this.#dirty = true;
    return fingerprint;
  }

  /**
   * The cached info of a plugin file whose contents (and imports) hash to `fingerprint`, when
   * the entry describes that file and is well formed.
   */
  lookup(pluginPath: string, fingerprint: string): CachedToolInfo | undefined {
    const entry = Object.hasOwn(this.#entries, fingerprint)
      ? this.#entries[fingerprint]
      : undefined;
    if (entry?.path !== pluginPath || !isToolInfo(entry.info, pluginPath)) return undefined;
    return entry.info;
  }

  /** Remembers a plugin's info under its fingerprint (call `save` to write it). */
  store(pluginPath: string, fingerprint: string, info: CachedToolInfo): void {
    const known = Object.hasOwn(this.#entries, fingerprint)
      ? this.#entries[fingerprint]
      : undefined;
    if (known?.path === pluginPath && JSON.stringify(known.info) === JSON.stringify(info)) return;
    this.forget(pluginPath); // one entry per file: older versions go
    this.#entries[fingerprint] = { path: pluginPath, info };
    this.#dirty = true;
  }

  /** Forgets a plugin (it failed to load, so its old schema must not be listed). */
  forget(pluginPath: string): void {
    for (const [fingerprint, entry] of Object.entries(this.#entries)) {
      if (entry.path !== pluginPath) continue;
      delete this.#entries[fingerprint];
      this.#dirty = true;
    }
  }

  /**
   * Writes the file when something changed (atomically: a temp file, then rename), without
   * the plugins whose files are gone (a removed checkout's built-ins): every start parses
   * it. Never throws.
   */
  async save(): Promise<void> {
    if (!this.#dirty || this.#path === undefined) return;
    this.#dropRemoved();
    const file: CacheFile = {
      format: 2,
      writer: this.#writer,
      entries: this.#entries,
      graphs: this.#graphs,
    };
    const temp = `${this.#path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    try {
      await Deno.mkdir(dirname(this.#path), { recursive: true });
      await Deno.writeTextFile(temp, JSON.stringify(file));
      await Deno.rename(temp, this.#path);
      this.#dirty = false;
    } catch {
      await Deno.remove(temp).catch(() => {}); // a read-only cache folder only costs speed
    }
  }
}

/**
 * Forgets the plugins whose files no longer exist (or cannot be read): each is asked about
 * once, with a synchronous stat (a few microseconds).
 */
function withoutRemoved<T>(
  table: Record<string, T>,
  pathOf: (key: string, value: T) => string,
  gone: (path: string) => boolean,
): void {
  for (const [key, value] of Object.entries(table)) {
    if (gone(pathOf(key, value))) delete table[key];
  }
}

/** A file's stamp now: size -1 when it does not exist or cannot be read. */
function stampNow(path: string): FileStamp {
  try {
    const info = Deno.statSync(path);
    return { path, size: info.size, mtime: info.mtime?.getTime() ?? NaN };
  } catch {
    return { path, size: -1, mtime: -1 };
  }
}

/** A file's stamp now: size -1 when it does not exist or cannot be read. */
async function stampOf(path: string): Promise<FileStamp> {
  try {
    const info = await Deno.stat(path);
    return { path, size: info.size, mtime: info.mtime?.getTime() ?? NaN };
  } catch {
    return { path, size: -1, mtime: -1 };
  }
}

/** The stamps of files that exist; undefined when one cannot be read. */
async function stampsOf(paths: readonly string[]): Promise<FileStamp[] | undefined> {
  const stamps = await Promise.all(paths.map(stampOf));
  return stamps.every((stamp) => stamp.size >= 0) ? stamps : undefined;
}

/**
 * Whether every file still has its stamp (a missing one is still missing), none of them
 * modified too close to the fingerprint's computation.
 */
function stampsHold(graph: GraphStamp): boolean {
  // Every plugin's graph at each start (some 250 files for the built-in tools): a synchronous
  // stat costs a few microseconds, an awaited one ten times that.
  const now = graph.files.map((file) => stampNow(file.path));
  return now.every((stamp, i) => {
    const then = graph.files[i]!;
    if (then.size < 0) return stamp.size < 0;
    return Number.isFinite(stamp.mtime) && stamp.size === then.size &&
      stamp.mtime === then.mtime && settledBy(stamp.mtime, graph.at);
  });
}

/** The well-formed graph stamps of a cache file (a broken one is left out, so recomputed). */
function wellFormedGraphs(value: unknown): Record<string, GraphStamp> {
  const graphs: Record<string, GraphStamp> = {};
  if (typeof value !== "object" || value === null) return graphs;
  for (const [path, raw] of Object.entries(value)) {
    const graph = raw as Partial<GraphStamp> | null;
    const files = graph?.files;
    if (
      typeof graph?.fingerprint === "string" && typeof graph.at === "number" &&
      Array.isArray(files) && files.length > 0 && files[0]?.path === path &&
      files.every((f: Partial<FileStamp> | null) =>
        typeof f?.path === "string" && typeof f.size === "number" && typeof f.mtime === "number"
      )
    ) {
      graphs[path] = { files, fingerprint: graph.fingerprint, at: graph.at };
    }
  }
  return graphs;
}

const RISKS = new Set(["safe", "low", "medium", "high"]);

/** Whether `info` is a well-formed description of the tool in `path` (named after its file). */
function isToolInfo(info: unknown, path: string): info is CachedToolInfo {
  if (typeof info !== "object" || info === null) return false;
  const tool = info as Partial<CachedToolInfo>;
  const fileName = path.split(/[\\/]/).pop()?.replace(/\.(ts|js)$/, "");
  return typeof tool.name === "string" && tool.name === fileName &&
    typeof tool.description === "string" && typeof tool.risk === "string" &&
    RISKS.has(tool.risk) && typeof tool.parameters === "object" && tool.parameters !== null &&
    tool.parameters.type === "object";
}

function isCacheFile(value: unknown): value is CacheFile {
  if (typeof value !== "object" || value === null) return false;
  const file = value as Partial<CacheFile>;
  if (file.format !== 2 || typeof file.writer !== "string") return false;
  if (typeof file.entries !== "object" || file.entries === null) return false;
  return Object.values(file.entries).every((entry) =>
    typeof entry === "object" && entry !== null && typeof entry.path === "string" &&
    typeof entry.info === "object" && entry.info !== null
  );
}
