// Trust for the project's config file. `./.harness/config.jsonc` arrives with a cloned
// repository, and some of its keys act for it: `plugins` run code, `base_url`, `api_key` and
// `provider` decide where the conversation and the user's API key go, `system_prompt`
// replaces what the model is told. As with project plugins and policy files, such keys apply
// only once the user trusts the file's current content (SHA-256); until then only the keys of
// PROJECT_CONFIG_SAFE_KEYS (config.ts) apply and one line says what was ignored. `--yes` plays
// no part: it approves tool calls, not configuration.
//
// Answers are kept in the trust store (trust_store.ts) under the file's real path with a
// digest of its content, the workspace's real path and the bytes of every script it runs
// (trusted_scripts.ts): the same text in another folder names other plugin folders (relative
// paths), so trust given in one clone does not carry over to another, and a hook script or
// plugin the model changed asks again.

import { relative } from "node:path";
import { sha256Hex } from "../platform/sha256_hex.ts";
import { configTrustDigest, writableScripts } from "./trusted_scripts.ts";
import {
  readTrustStore,
  recordTrust,
  trustPath,
  trustState,
  trustStoreFile,
  writeTrustStore,
} from "./trust_store.ts";

/** How config trust talks to the user: output, and a line of input in the REPL. */
export interface ConfigTrustIO {
  write(text: string): void;
  /** Shows the prompt and reads one answer; null at end of input. */
  readLine?(prompt: string): Promise<string | null>;
}

/** What loadSettings needs to settle an untrusted project config. */
export interface ConfigTrustOptions {
  /** True in the REPL: ask once per content. False for -p and the other commands. */
  interactive: boolean;
  io: ConfigTrustIO;
  /** The store (loadSettings' default: trustStoreFile() of trust_store.ts). */
  storeFile?: string;
  /** Folder that the file is shown relative to. */
  cwd?: string;
  /**
   * Whether a path lies inside a write grant: a script the config runs from there is named
   * at trust time (the model could change it; harness would then ask again).
   */
  writable?: (path: string) => boolean;
}

/** What a config's trust is bound to besides its text (trusted_scripts.ts). */
export interface ConfigTrustScope {
  /** The workspace's real path: trust in one folder does not carry to another. */
  workspace: string;
  /** The scripts the config runs (hooks, plugin files and their imports). */
  scripts: readonly string[];
}

/**
 * Decides whether an untrusted project config's acting keys apply. Content the user trusted
 * (same path, same SHA-256) applies silently. Otherwise, in the REPL, the user is asked once
 * per content and the answer is stored; without a question (or after a "no") one line names
 * the keys that are ignored and how to trust them.
 *
 * @param file The project config file (absolute).
 * @param text Its text, as parsed.
 * @param keys The acting keys it sets.
 * @param options Mode, I/O and the store.
 * @returns True when the keys apply.
 *
 * @example
 * ```ts
 * import { settleProjectConfig } from "./config_trust.ts";
 * const dir = await Deno.makeTempDir();
 * const out: string[] = [];
 * const io = { write: (t: string) => void out.push(t), readLine: () => Promise.resolve("y") };
 * const options = { interactive: true, io, storeFile: `${dir}/s.json` };
 * if (!await settleProjectConfig(`${dir}/c.jsonc`, "{}", ["plugins"], options)) throw new Error();
 * const later = { ...options, interactive: false };
 * if (!await settleProjectConfig(`${dir}/c.jsonc`, "{}", ["plugins"], later)) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function settleProjectConfig(
  file: string,
  text: string,
  keys: readonly string[],
  options: ConfigTrustOptions & {
    env?: (name: string) => string | undefined;
    scope?: ConfigTrustScope;
  },
): Promise<boolean> {
  const { io, scope } = options;
  const storeFile = options.storeFile ?? trustStoreFile(options.env);
  const hash = sha256Hex(text);
  // Trust covers what the file makes harness run, in this workspace (issue 38).
  const digest = scope ? await configTrustDigest(text, scope.workspace, scope.scripts) : hash;
  const store = await readTrustStore(storeFile, io);
  const real = await trustPath(file);
  const state = trustState(store, real, digest);
  const known = state === "trusted" ? true : state === "declined" ? false : undefined;
  if (known === true) return true;
  const shown = relative(options.cwd ?? Deno.cwd(), file) || file;
  const listed = keys.map((key) => `"${key}"`).join(", ");
  const ignoring = `Ignoring ${listed} of the untrusted project config "${shown}" (sha256 ${
    hash.slice(0, 12)
  })`;
  if (known === false) {
    io.write(
      `${ignoring}: you declined to trust this content; remove its entry from "${storeFile}" ` +
        "to be asked again\n",
    );
    return false;
  }
  if (!options.interactive || !io.readLine) {
    io.write(
      `${ignoring}: they run code, send your key and conversation elsewhere or change the ` +
        "model's instructions; to apply them, start harness in this folder without -p and " +
        "answer the trust prompt\n",
    );
    return false;
  }
  io.write(
    `The project config "${shown}" (sha256 ${hash.slice(0, 12)}) sets ${listed}: keys that ` +
      "can run code, send your API key and conversation elsewhere or change the model's " +
      "instructions\n",
  );
  // Each variable of the environment its MCP servers read, and where the value goes.
  const { configVariableFlows } = await import("./mcp_variable_flows.ts");
  for (const line of await configVariableFlows(text)) io.write(`  ${line}\n`);
  if (scope) writeScripts(scope.scripts, options);
  const answer = await io.readLine("Trust this file and apply them? [y/N] ");
  if (answer === null) {
    io.write(`\n${ignoring}: no answer; you will be asked again\n`);
    return false;
  }
  const trusted = ["y", "yes"].includes(answer.trim().toLowerCase());
  recordTrust(store, real, { sha256: digest, trusted });
  await writeTrustStore(storeFile, store, io);
  if (!trusted) io.write(`${ignoring}: you will not be asked again for this content\n`);
  return trusted;
}

/** Lists the scripts a trust answer covers, flagging those a write grant covers. */
function writeScripts(scripts: readonly string[], options: ConfigTrustOptions): void {
  if (scripts.length === 0) return;
  const cwd = options.cwd ?? Deno.cwd();
  const shown = (path: string) => relative(cwd, path) || path;
  options.io.write(
    `Trusting it also trusts the scripts it runs, as they are now: ${
      scripts.map(shown).join(", ")
    }\n`,
  );
  const writable = writableScripts(scripts, options.writable);
  if (writable.length > 0) {
    options.io.write(
      `Warning: ${writable.map(shown).join(", ")} ${
        writable.length === 1 ? "is" : "are"
      } inside a write grant: the model can change ${
        writable.length === 1 ? "it" : "them"
      }; harness asks again when ${writable.length === 1 ? "it changes" : "one changes"}\n`,
    );
  }
}
