// The once-only approval of a launcher's profile (launcher_profiles.ts): which entries still
// need one, the question that shows it, the line a server gets when it is not approved (naming
// the paths and hosts it would need), and saving the approved profile into the entry's
// `sandbox` in the user's config.jsonc, keeping the file's comments.

import {
  isStdioServer,
  type McpServerConfig,
  type McpServerSandbox,
} from "../config/mcp_config.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import {
  homeRelative,
  type LauncherProfile,
  launcherProfile,
  profileCovered,
  profileSandbox,
} from "./launcher_profiles.ts";

/** Where the question is asked and answered. */
export interface ProfileQuestionIO {
  readLine(prompt: string): Promise<string | null>;
  write(text: string): void;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The profile an entry's launcher still needs approved: a stdio entry of a known launcher,
 * with no `sandbox` of its own (a saved profile, or the user's hand-written one), whose needs
 * the grants do not already cover. Undefined otherwise.
 *
 * @example
 * ```ts
 * import { pendingProfile } from "./profile_approval.ts";
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
 * const env = { HOME: "/h" };
 * if (!pendingProfile({ command: "npx", args: ["pkg"] }, { grants: emptyGrants(), env, cwd: "/w" })) throw new Error();
 * if (pendingProfile({ command: "npx", sandbox: {} }, { grants: emptyGrants(), env, cwd: "/w" })) throw new Error();
 * if (pendingProfile({ command: "node" }, { grants: emptyGrants(), env, cwd: "/w" })) throw new Error();
 * ```
 */
export function pendingProfile(
  config: McpServerConfig,
  options: { grants: Grants; env: Env; cwd: string },
): LauncherProfile | undefined {
  const home = options.env.HOME;
  if (!isStdioServer(config) || config.sandbox !== undefined || !home) return undefined;
  const profile = launcherProfile(config, { env: options.env, home, cwd: options.cwd });
  return profile && !profileCovered(profile, options.grants) ? profile : undefined;
}

const KIND_WORDS = { read: "read", write: "read, write", net: "network", env: "variable" };

/** The profile as the question lists it: one line per need, then the notes. */
export function describeProfile(profile: LauncherProfile, home: string): string {
  const rows = profile.needs.map((need) => ({
    kind: KIND_WORDS[need.kind],
    value: need.kind === "read" || need.kind === "write"
      ? homeRelative(need.value, home)
      : need.value,
    why: need.why,
  }));
  if (profile.noNet) {
    rows.push({ kind: "network", value: "none", why: "even when --allow-net grants it" });
  }
  const kindWidth = Math.max(...rows.map((row) => row.kind.length));
  const valueWidth = Math.max(...rows.map((row) => row.value.length));
  const lines = rows.map((row) =>
    `  ${row.kind.padEnd(kindWidth)}  ${row.value.padEnd(valueWidth)}  ${row.why}`
  );
  return [...lines, ...profile.notes.map((note) => `  note: ${note}`)].join("\n");
}

/**
 * Shows the profile and asks whether to allow it.
 *
 * @returns Whether the answer was yes (end of input is no).
 */
export async function askProfile(
  name: string,
  profile: LauncherProfile,
  io: ProfileQuestionIO,
  home: string,
): Promise<boolean> {
  io.write(
    `MCP server "${name}" starts with ${profile.launcher}, which needs in its command sandbox:\n` +
      `${describeProfile(profile, home)}\n`,
  );
  const answer = await io.readLine(`Allow this for "${name}" and save it into its entry? [y/N] `);
  return /^\s*y(es)?\s*$/i.test(answer ?? "");
}

/**
 * The line of a server whose launcher's profile is not approved: what it needs (paths and
 * hosts), how to approve it once, and the `sandbox` to write by hand instead.
 *
 * @example
 * ```ts
 * import { unapprovedMessage } from "./profile_approval.ts";
 * import { launcherProfile } from "./launcher_profiles.ts";
 * const p = launcherProfile({ command: "npx", args: ["pkg"] }, { env: {}, home: "/h" })!;
 * const line = unapprovedMessage("fs", p, "/h");
 * if (!line.includes('"~/.npm"') || !line.includes('"registry.npmjs.org"')) throw new Error(line);
 * ```
 */
export function unapprovedMessage(name: string, profile: LauncherProfile, home: string): string {
  const paths = profile.needs.filter((need) => need.kind === "write")
    .map((need) => `"${homeRelative(need.value, home)}"`);
  const hosts = profile.needs.filter((need) => need.kind === "net").map((need) =>
    `"${need.value}"`
  );
  const needs = [
    ...(paths.length > 0 ? [`${paths.join(", ")} (read and write)`] : []),
    ...(hosts.length > 0 ? [`the network to ${hosts.join(", ")}`] : []),
  ].join(" and ");
  return `MCP server "${name}" was not started: ${profile.launcher} needs ${needs} in its ` +
    "command sandbox, and its profile is not approved yet: approve it once where harness can " +
    'ask (the REPL, or "harness mcp list" in a terminal), or add to its entry "sandbox": ' +
    JSON.stringify(profileSandbox(profile, home));
}

/** JSON with object keys sorted, to compare two entries whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      typeof v === "object" && v !== null && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
        : v,
  );
}

/**
 * Saves an approved `sandbox` into server `name`'s entry in the user's config `file`, when the
 * entry there is the one that runs (a project's or an editor's entry is not rewritten: its file
 * would lose its trust).
 *
 * @returns The line to show: where it was saved, or that it holds for this run only.
 */
export async function saveServerSandbox(
  file: string,
  name: string,
  config: McpServerConfig,
  sandbox: McpServerSandbox,
): Promise<string> {
  const kept = `The profile holds for this run: "${name}" is not an entry of "${file}" ` +
    `(add "sandbox": ${JSON.stringify(sandbox)} to its entry to keep it)`;
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch {
    return kept;
  }
  const { applyEdits, modify, parse } = await import("jsonc-parser");
  const parsed = parse(text.replace(/^\uFEFF/, ""), [], { allowTrailingComma: true });
  const entry = parsed?.mcp_servers?.[name];
  if (entry === undefined || canonical(entry) !== canonical(config)) return kept;
  const formattingOptions = { insertSpaces: true, tabSize: 2, eol: "\n" };
  const edits = modify(text, ["mcp_servers", name, "sandbox"], sandbox, { formattingOptions });
  try {
    await Deno.writeTextFile(file, applyEdits(text, edits));
  } catch (error) {
    return `Cannot save the profile into "${file}": ${(error as Error).message} (it holds for ` +
      "this run)";
  }
  return `Saved the profile into "${name}"'s entry in ${file}`;
}

/**
 * For `harness mcp add` and `import`: shows the profile an entry's launcher needs and asks
 * once; the `sandbox` to save with the entry when the answer is yes.
 */
export async function offerProfile(
  name: string,
  config: McpServerConfig,
  options: { grants: Grants; env: Env; cwd: string; io: ProfileQuestionIO },
): Promise<McpServerSandbox | undefined> {
  const home = options.env.HOME;
  const profile = pendingProfile(config, options);
  if (profile === undefined || !home) return undefined;
  if (await askProfile(name, profile, options.io, home)) return profileSandbox(profile, home);
  options.io.write(
    `Not saved: harness asks again when "${name}" first starts where it can ask (the REPL, or ` +
      '"harness mcp list" in a terminal)\n',
  );
  return undefined;
}
