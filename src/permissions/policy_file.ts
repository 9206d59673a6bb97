// Policy files on disk: finds them (user, project, --policies), loads their rules (parsed by
// policy_text.ts, imported only when a file has text) and appends "Always allow" rules to
// the user's file atomically. The only permissions module with file I/O besides the trust
// store.

import { dirname, join } from "../platform/paths.ts";
import { err, ok, type Result } from "../errors.ts";
import { configDir } from "../config/folders.ts";
import { sha256Hex } from "../platform/sha256_hex.ts";
import type { LoadedRule, PolicyRule } from "./policy.ts";
import type { PolicyFileError } from "./policy_text.ts";

/** One policy file to load; a missing optional file is skipped, a missing required one fails. */
export interface PolicyFileRef {
  path: string;
  required: boolean;
}

/**
 * Prints a policy file error for the user in Deno style. `formatAgentError` says "config
 * file" for every `config_invalid` error; policy files are named as such here.
 *
 * @param error The error from loadPolicyFiles or appendRule.
 * @returns `Invalid policy file "FILE": REASON`.
 *
 * @example
 * ```ts
 * import { formatPolicyFileError } from "./policy_file.ts";
 * const text = formatPolicyFileError({ kind: "config_invalid", file: "p.jsonc", reason: "x" });
 * if (text !== 'Invalid policy file "p.jsonc": x') throw new Error(text);
 * ```
 */
export function formatPolicyFileError(error: PolicyFileError): string {
  return `Invalid policy file "${error.file}": ${error.reason}`;
}

/**
 * The user's policy file: `$XDG_CONFIG_HOME/harness/policies.jsonc`, else
 * `~/.config/harness/policies.jsonc`.
 *
 * @example
 * ```ts
 * import { userPolicyFile } from "./policy_file.ts";
 * const f = userPolicyFile((k) => k === "XDG_CONFIG_HOME" ? "/x" : undefined);
 * if (f !== "/x/harness/policies.jsonc") throw new Error(f);
 * ```
 */
export function userPolicyFile(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string {
  return join(configDir(env), "policies.jsonc");
}

/**
 * The policy files in load order: user, project (`<cwd>/.harness/policies.jsonc`), then the
 * `--policies FILE` if given (required). Later files' rules come later, so they win.
 *
 * @example
 * ```ts
 * import { policyFileRefs } from "./policy_file.ts";
 * const refs = policyFileRefs({ cwd: "/p", extra: "x.jsonc", env: () => undefined });
 * if (refs.length !== 3 || refs[2]?.required !== true) throw new Error();
 * ```
 */
export function policyFileRefs(
  options: { cwd: string; extra?: string; env?: (name: string) => string | undefined },
): PolicyFileRef[] {
  const refs: PolicyFileRef[] = [
    { path: userPolicyFile(options.env), required: false },
    { path: join(options.cwd, ".harness", "policies.jsonc"), required: false },
  ];
  if (options.extra !== undefined) refs.push({ path: options.extra, required: true });
  return refs;
}

/**
 * Loads policy files in order and concatenates their rules. Any error stops loading: a
 * malformed file never falls back to "allow".
 *
 * @param paths Files in load order.
 * @returns The rules, or a `config_invalid` error whose reason starts with
 * `line L, column C:` when the problem has a position.
 *
 * @example
 * ```ts
 * import { loadPolicyFiles } from "./policy_file.ts";
 * const r = await loadPolicyFiles([{ path: "/no/such/file.jsonc", required: false }]);
 * if (!r.ok || r.value.length !== 0) throw new Error();
 * ```
 */
export async function loadPolicyFiles(
  paths: readonly PolicyFileRef[],
): Promise<Result<LoadedRule[], PolicyFileError>> {
  const rules: LoadedRule[] = [];
  for (const ref of paths) {
    let text: string;
    try {
      text = await Deno.readTextFile(ref.path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound && !ref.required) continue;
      const reason = error instanceof Deno.errors.NotFound
        ? "file not found: check the path given to --policies"
        : `cannot read it: ${(error as Error).message}`;
      return err({ kind: "config_invalid", file: ref.path, reason });
    }
    if (text.trim() === "") continue;
    const { parsePolicyText } = await import("./policy_text.ts");
    const parsed = parsePolicyText(ref.path, text);
    if (!parsed.ok) return parsed;
    rules.push(...parsed.value);
  }
  return ok(rules);
}

const NEW_FILE_HEADER =
  `// harness permission rules (user file). Rules apply in order; the last matching rule wins.
// "Always allow" answers at the permission prompt are appended here.
// Every field is documented in policies.example.jsonc in the harness repository.
{
  "rules": []
}
`;

/**
 * Appends a rule to a policy file, keeping existing comments and formatting; creates the
 * file (and its folder) with a header comment when missing. The rule is written on one line
 * under a `// Always allow, YYYY-MM-DD` comment. The file is replaced atomically.
 *
 * @param file The policy file (normally the user's).
 * @param rule The rule to append.
 * @returns The rule as it will load (with its index) and the content's hashes before and
 * after, or `config_invalid` when the existing file cannot be parsed (it is then left
 * untouched).
 *
 * @example
 * ```ts
 * import { appendRule, loadPolicyFiles } from "./policy_file.ts";
 * const dir = await Deno.makeTempDir();
 * const file = `${dir}/policies.jsonc`;
 * await appendRule(file, { tool: "read_file", action: "allow" });
 * const r = await loadPolicyFiles([{ path: file, required: true }]);
 * if (!r.ok || r.value[0]?.tool !== "read_file") throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function appendRule(
  file: string,
  rule: PolicyRule,
): Promise<Result<LoadedRule & { hashes: ContentChange }, PolicyFileError>> {
  let text: string;
  let before = "";
  try {
    text = await Deno.readTextFile(file);
    before = sha256Hex(text);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      return err({ kind: "config_invalid", file, reason: `cannot read it: ${String(error)}` });
    }
    text = NEW_FILE_HEADER;
  }
  if (text.trim() === "") text = NEW_FILE_HEADER;
  const { insertRuleText, parsePolicyText } = await import("./policy_text.ts");
  const existing = parsePolicyText(file, text);
  if (!existing.ok) return existing;
  const updated = insertRuleText(text, rule);
  try {
    await Deno.mkdir(dirname(file), { recursive: true });
    const temp = `${file}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    await Deno.writeTextFile(temp, updated);
    await Deno.rename(temp, file);
  } catch (error) {
    return err({ kind: "config_invalid", file, reason: `cannot write it: ${String(error)}` });
  }
  return ok({
    ...rule,
    file,
    index: existing.value.length + 1,
    hashes: { before, after: sha256Hex(updated) },
  });
}

/**
 * SHA-256 of a file's content before and after harness changed it ("" for no file): the
 * trust of a project policy file carries over only from the content the user trusted.
 */
export interface ContentChange {
  before: string;
  after: string;
}
