// The trust stores: which files a cloned repository brought the user trusted, by the SHA-256
// of their content, kept in the config folder. `trusted_plugins.json` holds project plugins
// and policy files (permissions/project_trust.ts), `trusted_configs.json` project config
// files (config_trust.ts). One reader and one writer for both: a damaged store trusts nothing.

import { dirname, join } from "node:path";
import { configDir } from "./folders.ts";

/** One answer: the file it was given for, yes or no, and when. */
export interface TrustEntry {
  path: string;
  trusted: boolean;
  decided_at: string;
}

/** The answers of one store by content hash. */
export type TrustEntries = Record<string, TrustEntry>;

/** Which store: its top-level key, and what it holds, for messages. */
export interface TrustStoreKind {
  /** The JSON key the entries are under: `plugins` or `configs`. */
  key: "plugins" | "configs";
  /** What is asked about again when the store cannot be read, e.g. "project plugins". */
  what: string;
}

/** The project plugin and policy file store. */
export const PLUGIN_TRUST: TrustStoreKind = { key: "plugins", what: "project plugins" };
/** The project config file store. */
export const CONFIG_TRUST: TrustStoreKind = { key: "configs", what: "project configs" };

/**
 * The plugin (and policy file) trust store: `$XDG_CONFIG_HOME/harness/trusted_plugins.json`,
 * else `~/.config/harness/trusted_plugins.json`.
 *
 * @example
 * ```ts
 * import { trustedPluginsFile } from "./trust_store.ts";
 * if (!trustedPluginsFile(() => "/h").endsWith("trusted_plugins.json")) throw new Error();
 * ```
 */
export function trustedPluginsFile(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string {
  return join(configDir(env), "trusted_plugins.json");
}

/**
 * The project config trust store, `trusted_configs.json` beside the plugin store.
 *
 * @example
 * ```ts
 * import { trustedConfigsFile } from "./trust_store.ts";
 * if (!trustedConfigsFile(() => "/h").endsWith("trusted_configs.json")) throw new Error();
 * ```
 */
export function trustedConfigsFile(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string {
  return join(configDir(env), "trusted_configs.json");
}

/**
 * Reads a store's answers. A missing file holds none; an unreadable or damaged one is said on
 * `io` and read as empty, so nothing is trusted on it and the user is asked again.
 *
 * @param file The store file.
 * @param kind Which store.
 * @param io Where problems are said.
 * @returns The answers by hash; entries without a path or a yes/no are left out.
 *
 * @example
 * ```ts
 * import { PLUGIN_TRUST, readTrustStore } from "./trust_store.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/s.json`, '{"plugins": {"ab": {"path": "/p.ts", "trusted": true}}}');
 * const entries = await readTrustStore(`${dir}/s.json`, PLUGIN_TRUST, { write: () => {} });
 * if (entries.ab?.trusted !== true) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readTrustStore(
  file: string,
  kind: TrustStoreKind,
  io: { write(text: string): void },
): Promise<TrustEntries> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      io.write(`Cannot read trust store "${file}": ${String(error)}: asking again\n`);
    }
    return {};
  }
  try {
    const value = (JSON.parse(text) as Record<string, unknown> | null)?.[kind.key];
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new Error(`expected { "${kind.key}": { ... } }`);
    }
    const entries: TrustEntries = {};
    for (const [hash, raw] of Object.entries(value)) {
      const e = raw as Partial<TrustEntry> | null;
      if (typeof e?.path === "string" && typeof e.trusted === "boolean") {
        entries[hash] = {
          path: e.path,
          trusted: e.trusted,
          decided_at: String(e.decided_at ?? ""),
        };
      }
    }
    return entries;
  } catch (error) {
    // Never trust on a damaged store: start empty, which asks again.
    io.write(
      `Ignoring trust store "${file}": cannot parse it: ${(error as Error).message}: ` +
        `${kind.what} will be asked about again\n`,
    );
    return {};
  }
}

/**
 * Writes a store's answers whole (a temporary file renamed over it, readable by the user
 * only). A failure is said on `io`: the answers then last this run.
 *
 * @param file The store file (its folder is made when missing).
 * @param kind Which store.
 * @param entries Every answer to keep.
 * @param io Where a failure is said.
 *
 * @example
 * ```ts
 * import { CONFIG_TRUST, readTrustStore, writeTrustStore } from "./trust_store.ts";
 * const dir = await Deno.makeTempDir();
 * const entry = { path: "/c.jsonc", trusted: false, decided_at: "now" };
 * await writeTrustStore(`${dir}/a/s.json`, CONFIG_TRUST, { cd: entry }, { write: () => {} });
 * const read = await readTrustStore(`${dir}/a/s.json`, CONFIG_TRUST, { write: () => {} });
 * if (read.cd?.trusted !== false) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeTrustStore(
  file: string,
  kind: TrustStoreKind,
  entries: TrustEntries,
  io: { write(text: string): void },
): Promise<void> {
  try {
    await Deno.mkdir(dirname(file), { recursive: true });
    const temp = `${file}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    const store = { version: 1, [kind.key]: entries };
    await Deno.writeTextFile(temp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
    await Deno.rename(temp, file);
  } catch (error) {
    io.write(`Cannot save trust store "${file}": ${String(error)}: the answer lasts this run\n`);
  }
}
