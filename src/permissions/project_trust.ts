// Trust for files a cloned repository brings that run code or loosen rules: project plugins
// (`./plugins`), the project policy file, custom commands, skills. New or changed files (by
// SHA-256 of the file, for a plugin with every local file it imports) are listed and asked
// about once, and the answer is kept in the trust store (config/trust_store.ts) under the
// file's real path, bound to the workspace's real path: the same bytes in another folder, and
// the same files linked into another workspace, are asked about again. The tool host checks
// again (trustedHash) before each import, so a plugin or helper changed during the session
// does not run.

import { basename, dirname, relative } from "../platform/paths.ts";
import { type FilePin, importGraphHash } from "../platform/import_graph.ts";
import {
  readTrustStore,
  recordTrust,
  trustPath,
  trustState,
  trustStoreFile,
  writeTrustStore,
} from "../config/trust_store.ts";
import { terminalLine } from "../platform/terminal_text.ts";
import { sha256Hex } from "../platform/sha256_hex.ts";

/** The I/O trust needs: a one-line answer and output. */
export interface TrustIO {
  readLine(prompt: string): Promise<string | null>;
  write(text: string): void;
  /**
   * One key, as the approval prompt takes it (a terminal in the REPL); without it the answer
   * is a line.
   */
  readKey?(prompt: string): Promise<string | null>;
}

export interface ProjectTrustOptions {
  io: TrustIO;
  /**
   * True in the REPL (ask about new plugins); false with -p (skip them with a warning).
   * `--yes` plays no part: it approves tool calls, not code.
   */
  interactive: boolean;
  /** The trust store (default: trustStoreFile() of trust_store.ts). */
  storeFile?: string;
  /** Folder that file names are shown relative to (default: the working directory). */
  cwd?: string;
  /** The workspace trust is bound to (default: `cwd`). */
  workspace?: string;
  /** How the files are named in messages (default: project plugins). */
  wording?: TrustWording;
}

/** How trust messages name the files: plugins by default, or a project policy file. */
export interface TrustWording {
  /** Singular noun, e.g. "project plugin". */
  noun: string;
  /** Why trust is asked, e.g. "Project plugins run code from this folder". */
  why: string;
  /** The question, e.g. "Trust and load them?". */
  question: string;
  /** What happens without trust, e.g. "Not loading them". */
  withoutTrust: string;
  /** Starts the line for files used without trust, e.g. "Skipping". */
  skipping: string;
  /** How to trust them without the REPL, if there is a way (`harness plugin trust`). */
  trustCommand?: string;
}

const PLUGIN_WORDING: TrustWording = {
  noun: "project plugin",
  why: "Project plugins run code from this folder",
  question: "Trust and load them?",
  withoutTrust: "Not loading them",
  skipping: "Skipping",
  trustCommand: "harness plugin trust",
};

/** Which project plugin files to load. */
export interface ProjectTrustResult {
  load: string[];
  skipped: string[];
}

/** A file's trust hash and, for a plugin, the files it was made of (checked before import). */
export interface TrustHash {
  hash: string;
  pins?: FilePin[];
}

/**
 * The hash trust is recorded under: for a plugin (`.ts`, `.js`, `.mts`, `.mjs`), the SHA-256
 * of it and every local file it imports (see importGraphHash in src/platform/import_graph.ts;
 * a plugin that imports nothing hashes as its bytes); for any other file (a policy file), the
 * SHA-256 of its bytes.
 *
 * @param file The file.
 * @returns The hex digest, or why it cannot be hashed.
 *
 * @example
 * ```ts
 * import { trustHash } from "./project_trust.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/p.jsonc`, "{}");
 * const r = await trustHash(`${dir}/p.jsonc`);
 * if (!("hash" in r) || !r.hash.startsWith("44136fa355b3")) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function trustHash(file: string): Promise<TrustHash | { error: string }> {
  if (/\.[mc]?[jt]s$/.test(file)) return await importGraphHash(file);
  try {
    const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(file));
    return {
      hash: Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join(""),
    };
  } catch (error) {
    return { error: `cannot read it: ${String(error)}` };
  }
}

/**
 * What a decision is recorded with: a file's trust hash bound to the workspace's real path, so
 * that trust given in one workspace does not carry to another that links the same files in
 * (a `plugins` link to a folder trusted elsewhere). Messages show the content's hash.
 *
 * @param hash The file's trust hash ({@linkcode trustHash}).
 * @param workspace The workspace the file is used in (links resolved).
 * @returns The hex digest stored.
 *
 * @example
 * ```ts
 * import { placedDigest } from "./project_trust.ts";
 * if (await placedDigest("ab", "/nowhere/a") === await placedDigest("ab", "/nowhere/b")) {
 *   throw new Error();
 * }
 * ```
 */
export async function placedDigest(hash: string, workspace: string): Promise<string> {
  return sha256Hex(JSON.stringify({ content: hash, workspace: await trustPath(workspace) }));
}

/**
 * Whether the user trusts `file` as it is now (its trust hash is stored as trusted). The
 * tool host asks this before each import of a project plugin.
 *
 * @param file The plugin file.
 * @param options The store location (default trustStoreFile()) and the workspace it is used
 *   in (default: the working directory).
 * @returns `{ hash }` when trusted, else the reason, in words for the user.
 *
 * @example
 * ```ts
 * import { markTrusted, trustedHash } from "./project_trust.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/t.ts`, "export default {}");
 * const storeFile = `${dir}/s.json`;
 * if ("hash" in await trustedHash(`${dir}/t.ts`, { storeFile })) throw new Error();
 * await markTrusted(`${dir}/t.ts`, { io: { readLine: () => Promise.resolve(null), write: () => {} }, storeFile });
 * if (!("hash" in await trustedHash(`${dir}/t.ts`, { storeFile }))) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function trustedHash(
  file: string,
  options: { storeFile?: string; workspace?: string } = {},
): Promise<TrustHash | { error: string }> {
  const hashed = await trustHash(file);
  if ("error" in hashed) return hashed;
  const store = await readTrustStore(options.storeFile ?? trustStoreFile(), { write: () => {} });
  const digest = await placedDigest(hashed.hash, options.workspace ?? Deno.cwd());
  if (trustState(store, await trustPath(file), digest) === "trusted") return hashed;
  return {
    error: `it changed since you trusted it (sha256 ${hashed.hash.slice(0, 12)}): ` +
      "restart harness in this folder to review it",
  };
}

/**
 * Decides which project plugin files may load. Files whose current trust hash (see
 * {@linkcode trustHash}: a plugin and its local imports) the user trusted load silently; files declined before are skipped with a note. New or changed files are
 * listed with a 12-hex short hash; in interactive mode one question (`[y/N]`) covers them
 * all and the answer is stored per hash; otherwise they are skipped with a warning saying to
 * start `harness` in this folder without -p and answer the prompt.
 *
 * @param files Project plugin files (from `./plugins`).
 * @param options I/O, mode and store location.
 * @returns The files to load and the files skipped.
 *
 * @example
 * ```ts
 * import { checkProjectTrust } from "./project_trust.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/t.ts`, "export default {}");
 * const io = { readLine: () => Promise.resolve("y"), write: () => {} };
 * const r = await checkProjectTrust([`${dir}/t.ts`], { io, interactive: true, storeFile: `${dir}/s.json` });
 * if (r.load.length !== 1) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkProjectTrust(
  files: readonly string[],
  options: ProjectTrustOptions,
): Promise<ProjectTrustResult> {
  const { io } = options;
  const words = options.wording ?? PLUGIN_WORDING;
  const storeFile = options.storeFile ?? trustStoreFile();
  const cwd = options.cwd ?? Deno.cwd();
  const workspace = options.workspace ?? cwd;
  // File names come with the repository: escapes show as text.
  const show = (file: string) => terminalLine(relative(cwd, file) || basename(file));
  if (files.length === 0) return { load: [], skipped: [] };
  const store = await readTrustStore(storeFile, io);
  const load: string[] = [];
  const skipped: string[] = [];
  const pending: {
    file: string;
    real: string;
    hash: string;
    digest: string;
    changed: boolean;
  }[] = [];
  for (const file of files) {
    const hashed = await trustHash(file);
    if ("error" in hashed) {
      io.write(`${words.skipping} ${words.noun} "${show(file)}": ${hashed.error}\n`);
      skipped.push(file);
      continue;
    }
    const hash = hashed.hash;
    const real = await trustPath(file);
    const digest = await placedDigest(hash, workspace);
    const state = trustState(store, real, digest);
    if (state === "trusted") load.push(file);
    else if (state === "declined") {
      io.write(
        `${words.skipping} ${words.noun} "${show(file)}" (sha256 ${
          hash.slice(0, 12)
        }): you declined ` +
          `to trust it; remove its entry from "${storeFile}" to be asked again\n`,
      );
      skipped.push(file);
    } else {
      pending.push({ file, real, hash, digest, changed: state === "changed" });
    }
  }
  if (pending.length === 0) return { load, skipped };

  const listing = pending.map((p) =>
    `  ${show(p.file)}  sha256 ${p.hash.slice(0, 12)}  ${p.changed ? "(changed)" : "(new)"}\n`
  ).join("");
  if (!options.interactive) {
    io.write(
      `${words.skipping} ${pending.length} untrusted ${words.noun}(s) in "${
        show(dirname(pending[0]!.file))
      }":\n${listing}` +
        (words.trustCommand
          ? `To trust them, run "${words.trustCommand}" after reading them, or start harness ` +
            "in this folder without -p and answer the trust prompt\n"
          : "To trust them, start harness in this folder without -p and answer the trust prompt\n"),
    );
    return { load, skipped: [...skipped, ...pending.map((p) => p.file)] };
  }
  io.write(
    `${words.why}. New or changed since you last trusted them:\n${listing}`,
  );
  const question = `${words.question} [y/n] `;
  const answer = (io.readKey ? await io.readKey(question) : await io.readLine(question))
    ?.trim().toLowerCase();
  const trusted = answer === "y" || answer === "yes";
  // Only a clear "n" is remembered; Enter, another key or the end of input skips them this
  // time and asks again next time (a typo never becomes "never ask again").
  const declined = answer === "n" || answer === "no";
  if (!trusted && !declined) {
    io.write(`${words.withoutTrust} this time; you will be asked again (answer y or n)\n`);
    return { load, skipped: [...skipped, ...pending.map((p) => p.file)] };
  }
  for (const p of pending) {
    // The decision replaces the file's old one: an older version is not trusted again.
    recordTrust(store, p.real, { sha256: p.digest, trusted });
    (trusted ? load : skipped).push(p.file);
  }
  if (!trusted) {
    io.write(`${words.withoutTrust}; you will not be asked again for these versions\n`);
  }
  await writeTrustStore(storeFile, store, io);
  return { load, skipped };
}

/**
 * Records a file's current content as trusted, e.g. after harness itself wrote a rule the
 * user approved into a trusted project policy file.
 *
 * @param file The file.
 * @param options I/O for errors, the store location and the workspace the file is trusted in
 *   (default: the working directory).
 *
 * @example
 * ```ts
 * import { checkProjectTrust, markTrusted } from "./project_trust.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/t.ts`, "export default {}");
 * const io = { readLine: () => Promise.resolve("n"), write: () => {} };
 * await markTrusted(`${dir}/t.ts`, { io, storeFile: `${dir}/s.json` });
 * const r = await checkProjectTrust([`${dir}/t.ts`], { io, interactive: false, storeFile: `${dir}/s.json` });
 * if (r.load.length !== 1) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function markTrusted(
  file: string,
  options: { io: TrustIO; storeFile?: string; workspace?: string },
): Promise<void> {
  const storeFile = options.storeFile ?? trustStoreFile();
  const store = await readTrustStore(storeFile, options.io);
  const hashed = await trustHash(file);
  if ("error" in hashed) throw new Error(`Cannot trust "${file}": ${hashed.error}`);
  const digest = await placedDigest(hashed.hash, options.workspace ?? Deno.cwd());
  recordTrust(store, await trustPath(file), { sha256: digest, trusted: true });
  await writeTrustStore(storeFile, store, options.io);
}

/**
 * After harness itself changed a trusted file (an approved rule saved into the project policy
 * file): the new content stays trusted only when the content it changed was the trusted one,
 * so whatever else wrote to the file meanwhile (the model, with a write grant) is asked about.
 *
 * @param file The file harness changed.
 * @param options The content's SHA-256 before and after the change, I/O, the store and the
 *   workspace (default: the working directory).
 * @returns Whether the file is trusted now.
 *
 * @example
 * ```ts
 * import { carryTrust, markTrusted, trustHash } from "./project_trust.ts";
 * const dir = await Deno.makeTempDir();
 * const file = `${dir}/p.jsonc`;
 * const io = { readLine: () => Promise.resolve(null), write: () => {} };
 * await Deno.writeTextFile(file, "{}");
 * await markTrusted(file, { io, storeFile: `${dir}/s.json` });
 * const before = await trustHash(file);
 * await Deno.writeTextFile(file, '{ "rules": [] }');
 * const after = await trustHash(file);
 * if (!("hash" in before) || !("hash" in after)) throw new Error();
 * const kept = await carryTrust(file, { before: before.hash, after: after.hash, io, storeFile: `${dir}/s.json` });
 * if (!kept) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function carryTrust(
  file: string,
  options: { before: string; after: string; io: TrustIO; storeFile?: string; workspace?: string },
): Promise<boolean> {
  const storeFile = options.storeFile ?? trustStoreFile();
  const store = await readTrustStore(storeFile, options.io);
  const real = await trustPath(file);
  const workspace = options.workspace ?? Deno.cwd();
  if (trustState(store, real, await placedDigest(options.before, workspace)) !== "trusted") {
    return false;
  }
  const now = await trustHash(file);
  if (!("hash" in now) || now.hash !== options.after) return false;
  recordTrust(store, real, { sha256: await placedDigest(options.after, workspace), trusted: true });
  await writeTrustStore(storeFile, store, options.io);
  return true;
}
