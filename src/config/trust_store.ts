// The one trust store: what the user decided about files a repository brings (project plugins,
// `.harness/policies.jsonc`, `.harness/config.jsonc`), one record per file, keyed by its real
// path and holding the SHA-256 of the content decided on. Trust follows bytes AND places: the
// same bytes elsewhere are new, a changed file asks again, and a new decision replaces the old
// one (no stale hashes). project_trust.ts and config_trust.ts decide; this module keeps.

import { dirname, join, resolve } from "../platform/paths.ts";
import { configDir } from "./folders.ts";

/** One decision: the content's SHA-256 and whether the user trusted it. */
export interface TrustRecord {
  sha256: string;
  trusted: boolean;
  decided_at: string;
}

/** The store's file format. */
export interface TrustStore {
  version: 2;
  /** Records by real path. */
  files: Record<string, TrustRecord>;
}

/** What the store says about a file's current content. */
export type TrustState = "trusted" | "declined" | "changed" | "new";

/** Where trust messages go. */
export interface TrustStoreIO {
  write(text: string): void;
}

/** Stores of earlier versions, keyed by hash; read once when the store does not exist yet. */
const LEGACY_FILES = ["trusted_plugins.json", "trusted_configs.json"];

/**
 * The trust store: `$XDG_CONFIG_HOME/harness/trust.json`, else `~/.config/harness/trust.json`.
 *
 * @example
 * ```ts
 * import { trustStoreFile } from "./trust_store.ts";
 * if (!trustStoreFile(() => "/h").endsWith("harness/trust.json")) throw new Error();
 * ```
 */
export function trustStoreFile(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string {
  return join(configDir(env), "trust.json");
}

/**
 * The path trust is recorded under: the file's real path (symbolic links followed), or its
 * absolute path when it does not exist.
 *
 * @example
 * ```ts
 * import { trustPath } from "./trust_store.ts";
 * if (await trustPath("/nonexistent/x") !== "/nonexistent/x") throw new Error();
 * ```
 */
export async function trustPath(file: string): Promise<string> {
  try {
    return await Deno.realPath(file);
  } catch {
    return resolve(file);
  }
}

/**
 * What the store says about `path` holding content `sha256`.
 *
 * @example
 * ```ts
 * import { trustState } from "./trust_store.ts";
 * const store = { version: 2 as const, files: { "/p": { sha256: "a", trusted: true, decided_at: "" } } };
 * if (trustState(store, "/p", "a") !== "trusted" || trustState(store, "/p", "b") !== "changed") {
 *   throw new Error();
 * }
 * if (trustState(store, "/q", "a") !== "new") throw new Error();
 * ```
 */
export function trustState(store: TrustStore, path: string, sha256: string): TrustState {
  const record = Object.hasOwn(store.files, path) ? store.files[path]! : undefined;
  if (record === undefined) return "new";
  if (record.sha256 !== sha256) return "changed";
  return record.trusted ? "trusted" : "declined";
}

/** Records a decision about `path`, replacing the one before. */
export function recordTrust(
  store: TrustStore,
  path: string,
  decision: { sha256: string; trusted: boolean },
): void {
  store.files[path] = { ...decision, decided_at: new Date().toISOString() };
}

/**
 * Reads the store. A missing store starts from the stores of earlier versions (records keyed
 * by hash, each with the path it was decided for); a damaged one is empty, so everything is
 * asked about again. Never trusts on a failure.
 */
export async function readTrustStore(file: string, io: TrustStoreIO): Promise<TrustStore> {
  const text = await readText(file, io);
  if (text === undefined) return await readLegacy(dirname(file), io);
  const files: Record<string, TrustRecord> = {};
  try {
    const value = (JSON.parse(text) as { files?: unknown } | null)?.files;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new Error('expected { "files": { ... } }');
    }
    for (const [path, raw] of Object.entries(value)) {
      const r = raw as Partial<TrustRecord> | null;
      if (typeof r?.sha256 === "string" && typeof r.trusted === "boolean") {
        files[path] = { sha256: r.sha256, trusted: r.trusted, decided_at: String(r.decided_at) };
      }
    }
  } catch (error) {
    io.write(
      `Ignoring trust store "${file}": cannot parse it: ${(error as Error).message}: ` +
        "project files will be asked about again\n",
    );
  }
  return { version: 2, files };
}

/** Writes the store (owner-only), through a temporary file so it is never half written. */
export async function writeTrustStore(
  file: string,
  store: TrustStore,
  io: TrustStoreIO,
): Promise<void> {
  try {
    await Deno.mkdir(dirname(file), { recursive: true });
    const temp = `${file}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    await Deno.writeTextFile(temp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
    await Deno.rename(temp, file);
  } catch (error) {
    io.write(`Cannot save trust store "${file}": ${String(error)}: the answer lasts this run\n`);
  }
}

async function readText(file: string, io: TrustStoreIO): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      io.write(`Cannot read trust store "${file}": ${String(error)}: asking again\n`);
    }
    return undefined;
  }
}

/**
 * Records of the stores before version 2 (`{ "plugins" | "configs": { HASH: { path, trusted,
 * decided_at } } }`), by path: the latest decision for each path. The files stay as they are.
 */
async function readLegacy(folder: string, io: TrustStoreIO): Promise<TrustStore> {
  const store: TrustStore = { version: 2, files: {} };
  for (const name of LEGACY_FILES) {
    const text = await readText(join(folder, name), io);
    if (text === undefined) continue;
    try {
      const value = JSON.parse(text) as { plugins?: unknown; configs?: unknown } | null;
      const records = value?.plugins ?? value?.configs;
      if (typeof records !== "object" || records === null) continue;
      for (const [sha256, raw] of Object.entries(records)) {
        const r = raw as { path?: unknown; trusted?: unknown; decided_at?: unknown } | null;
        if (typeof r?.path !== "string" || typeof r.trusted !== "boolean") continue;
        const decided = String(r.decided_at ?? "");
        const known = Object.hasOwn(store.files, r.path) ? store.files[r.path] : undefined;
        if (known && known.decided_at > decided) continue;
        store.files[r.path] = { sha256, trusted: r.trusted, decided_at: decided };
      }
    } catch {
      // A damaged old store is as good as none: everything is asked about again.
    }
  }
  return store;
}
