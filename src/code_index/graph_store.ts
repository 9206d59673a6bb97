// The code graph on disk: one SQLite database per workspace (next to the sessions) holding
// each indexed file's fingerprint (size, mtime, SHA-256), its definitions and references, and
// the definitions' chunks that semantic search embeds (their vectors: vector_store.ts).
// Each file is replaced in its own transaction, so a kill during indexing leaves every file
// either fully old or fully new and the index usable.

import { DatabaseSync, type StatementSync } from "node:sqlite";
import { dirname, join } from "node:path";
import type { Definition, FileSymbols, Reference } from "./symbol_parser.ts";
import type { DefinitionChunk } from "./definition_chunks.ts";

/** What identifies a file's content on disk. */
export interface FileFingerprint {
  path: string;
  size: number;
  mtimeMs: number;
  hash: string;
}

/** A definition with the file it is in. */
export interface StoredDefinition extends Definition {
  path: string;
}

/** A reference with the file it is in. */
export interface StoredReference extends Reference {
  path: string;
}

/** 3: definition chunks (an index of version 2 is rebuilt, so every file gets them). */
const SCHEMA_VERSION = 3;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  mtime_ms INTEGER NOT NULL,
  hash TEXT NOT NULL,
  grammar TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS definitions (
  path TEXT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  signature TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refs (
  path TEXT NOT NULL,
  name TEXT NOT NULL,
  line INTEGER NOT NULL,
  text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
  path TEXT NOT NULL,
  line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  hash TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS curated (
  file_key TEXT NOT NULL,
  context_key TEXT NOT NULL,
  ranges TEXT NOT NULL,
  PRIMARY KEY (file_key, context_key)
);
CREATE INDEX IF NOT EXISTS definitions_name ON definitions (name);
CREATE INDEX IF NOT EXISTS definitions_path ON definitions (path);
CREATE INDEX IF NOT EXISTS refs_name ON refs (name);
CREATE INDEX IF NOT EXISTS refs_path ON refs (path);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks (path);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks (hash);
`;

/**
 * The index database of a workspace: `<dataDir>/code_index/<first 16 hex of SHA-256(workspace)>.db`.
 *
 * @param dataDir harness's data folder.
 * @param workspace The absolute workspace path.
 */
export async function graphStorePath(dataDir: string, workspace: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(workspace));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return join(dataDir, "code_index", `${hex.slice(0, 16)}.db`);
}

function num(value: unknown): number {
  return typeof value === "number" ? value : Number(value ?? 0);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : String(value ?? "");
}

/** Reads and writes the code graph of one workspace. */
export class GraphStore {
  readonly db: DatabaseSync;
  #statements = new Map<string, StatementSync>();

  private constructor(db: DatabaseSync, readonly path: string) {
    this.db = db;
  }

  /**
   * Opens (creating when missing, owner-only) the database at `path`. A database written by
   * an older schema is emptied and rebuilt: the index is a cache of the files.
   */
  static open(path: string): GraphStore {
    if (path !== ":memory:") {
      Deno.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      try {
        Deno.chmodSync(dirname(path), 0o700);
      } catch { /* not the owner, or Windows */ }
    }
    const db = new DatabaseSync(path);
    if (path !== ":memory:") {
      try {
        Deno.chmodSync(path, 0o600);
      } catch { /* Windows */ }
    }
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
    const version = num(db.prepare("PRAGMA user_version").get()?.user_version);
    if (version !== SCHEMA_VERSION) {
      db.exec(
        "DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS definitions; DROP TABLE IF EXISTS refs; " +
          "DROP TABLE IF EXISTS chunks;",
      );
      db.exec(SCHEMA);
      db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    }
    return new GraphStore(db, path);
  }

  close(): void {
    this.#statements.clear();
    this.db.close();
  }

  /** A prepared statement, compiled once per store. */
  #sql(text: string): StatementSync {
    let statement = this.#statements.get(text);
    if (!statement) this.#statements.set(text, statement = this.db.prepare(text));
    return statement;
  }

  /** Every indexed file's fingerprint, by path. */
  fingerprints(): Map<string, FileFingerprint> {
    const out = new Map<string, FileFingerprint>();
    for (const row of this.db.prepare("SELECT path, size, mtime_ms, hash FROM files").all()) {
      const path = str(row.path);
      out.set(path, { path, size: num(row.size), mtimeMs: num(row.mtime_ms), hash: str(row.hash) });
    }
    return out;
  }

  /** Replaces what is known of one file, atomically. */
  putFile(
    file: FileFingerprint,
    grammar: string,
    symbols: FileSymbols,
    chunks: readonly DefinitionChunk[] = [],
  ): void {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      this.#deleteRows(file.path);
      this.#sql(
        "INSERT INTO files (path, size, mtime_ms, hash, grammar) VALUES (?, ?, ?, ?, ?)",
      ).run(file.path, file.size, Math.trunc(file.mtimeMs), file.hash, grammar);
      const def = this.#sql(
        "INSERT INTO definitions (path, name, kind, line, end_line, signature) VALUES (?, ?, ?, ?, ?, ?)",
      );
      for (const d of symbols.definitions) {
        def.run(file.path, d.name, d.kind, d.line, d.endLine, d.signature);
      }
      const ref = this.#sql("INSERT INTO refs (path, name, line, text) VALUES (?, ?, ?, ?)");
      for (const r of symbols.references) ref.run(file.path, r.name, r.line, r.text);
      const chunk = this.#sql(
        "INSERT INTO chunks (path, line, end_line, hash, text) VALUES (?, ?, ?, ?, ?)",
      );
      for (const c of chunks) chunk.run(file.path, c.line, c.endLine, c.hash, c.text);
      this.db.exec("COMMIT");
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }

  /** Records a new mtime for a file whose content (hash) did not change. */
  touchFile(file: FileFingerprint): void {
    this.#sql("UPDATE files SET size = ?, mtime_ms = ? WHERE path = ?")
      .run(file.size, Math.trunc(file.mtimeMs), file.path);
  }

  /** Forgets files that are gone (deleted, renamed, now ignored). */
  removeFiles(paths: readonly string[]): void {
    if (paths.length === 0) return;
    this.db.exec("BEGIN IMMEDIATE");
    try {
      for (const path of paths) this.#deleteRows(path);
      this.db.exec("COMMIT");
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }

  #deleteRows(path: string): void {
    this.#sql("DELETE FROM files WHERE path = ?").run(path);
    this.#sql("DELETE FROM definitions WHERE path = ?").run(path);
    this.#sql("DELETE FROM refs WHERE path = ?").run(path);
    this.#sql("DELETE FROM chunks WHERE path = ?").run(path);
  }

  /** Counts of files, definitions and references. */
  counts(): { files: number; definitions: number; references: number } {
    const count = (table: string) =>
      num(this.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n);
    return { files: count("files"), definitions: count("definitions"), references: count("refs") };
  }

  /** Every definition (for ranking), in path and line order. */
  allDefinitions(): StoredDefinition[] {
    return this.db.prepare(
      "SELECT path, name, kind, line, end_line, signature FROM definitions ORDER BY path, line",
    ).all().map(toDefinition);
  }

  /** Every reference (for ranking). */
  allReferences(): StoredReference[] {
    return this.db.prepare("SELECT path, name, line, '' AS text FROM refs").all().map(toReference);
  }

  /** Definitions named exactly `name`. */
  definitionsNamed(name: string): StoredDefinition[] {
    return this.db.prepare(
      "SELECT path, name, kind, line, end_line, signature FROM definitions WHERE name = ? ORDER BY path, line",
    ).all(name).map(toDefinition);
  }

  /** Every distinct defined name (for fuzzy matching). */
  definedNames(): string[] {
    return this.db.prepare("SELECT DISTINCT name FROM definitions").all().map((r) => str(r.name));
  }

  /** References to exactly `name`, in path and line order. */
  referencesNamed(name: string): StoredReference[] {
    return this.db.prepare(
      "SELECT path, name, line, text FROM refs WHERE name = ? ORDER BY path, line",
    )
      .all(name).map(toReference);
  }

  /** The curator's line ranges for a file content and conversation context, if cached. */
  curatedRanges(fileKey: string, contextKey: string): Array<[number, number]> | undefined {
    const row = this.#sql("SELECT ranges FROM curated WHERE file_key = ? AND context_key = ?")
      .get(fileKey, contextKey);
    return row ? JSON.parse(str(row.ranges)) as Array<[number, number]> : undefined;
  }

  /** Caches the curator's choice. */
  putCuratedRanges(fileKey: string, contextKey: string, ranges: Array<[number, number]>): void {
    this.#sql("INSERT OR REPLACE INTO curated (file_key, context_key, ranges) VALUES (?, ?, ?)")
      .run(fileKey, contextKey, JSON.stringify(ranges));
  }

  /** Definitions of one file in line order. */
  definitionsIn(path: string): StoredDefinition[] {
    return this.db.prepare(
      "SELECT path, name, kind, line, end_line, signature FROM definitions WHERE path = ? ORDER BY line",
    ).all(path).map(toDefinition);
  }
}

function toDefinition(row: Record<string, unknown>): StoredDefinition {
  return {
    path: str(row.path),
    name: str(row.name),
    kind: str(row.kind),
    line: num(row.line),
    endLine: num(row.end_line),
    signature: str(row.signature),
  };
}

function toReference(row: Record<string, unknown>): StoredReference {
  return { path: str(row.path), name: str(row.name), line: num(row.line), text: str(row.text) };
}
