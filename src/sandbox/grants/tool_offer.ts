// What the model is offered of the tool set (src/tools/tool_set.ts), decided in one function
// from the grants, the window and the mode. A tool the sandbox can never run (it declares a
// permission the grants leave empty, such as write_file with only --allow-read=.) is left out,
// so its schema costs no context and the model never tries it; /tools lists it with the flag
// that would enable it. Below a window size, schemas go in their compact form (first sentence
// of each description, no parameter descriptions or examples). The mode narrows the set: a
// child conversation offers only the tools it was given. Plan mode offers the same tools and
// runs each call in its own set, built from its narrowed grants (`calls`).

import { makeToolResult, type ToolSchema } from "../../messages.ts";
import { ok } from "../../errors.ts";
import type { Grants } from "./grants.ts";
import { effectivePermissions } from "./effective_permissions.ts";
import { grantFor, type ToolGrants } from "./tool_grants.ts";
import type { ToolPermissions } from "../../tools/define_tool.ts";
import type { FilePort } from "../../tools/file_port.ts";
import type { FileGate } from "../../gate/file_gate.ts";
import { type ToolEntry, type ToolInfo, toToolSchema } from "../../tools/tool_entry.ts";
import type { ToolSet } from "../../tools/tool_set.ts";
import { isTool, JOB_TOOLS } from "../../tools/builtin_tools.ts";

/**
 * Windows below this many tokens get compact schemas. Measured with bench/context_bench.ts:
 * the 17 built-in tools take about 2,250 tokens in full and 1,430 compact (11 tools and 850
 * tokens with --allow-read=. only). In full they take 28% of an 8k window and 14% of a 16k
 * one; from 16k up the saving no longer matters next to the conversation.
 */
export const COMPACT_SCHEMA_BELOW = 16_384;

/** Which of the set a conversation offers: all, or only the tools named (a child's list). */
export type ToolMode = { kind: "all" } | { kind: "tools"; names: readonly string[] };

/** What narrows each mode. */
const MODE_FILTERS: {
  [K in ToolMode["kind"]]: (info: ToolInfo, mode: Extract<ToolMode, { kind: K }>) => boolean;
} = {
  all: () => true,
  tools: (info, mode) => mode.names.includes(info.name),
};

/** A front end's files put behind a narrower scope's gate and grants. */
export type FilesBehind = (scope: { gate: FileGate; grants: Grants }) => FilePort;

/**
 * Tools with their files port put behind a narrowed scope's gate and grants: the front end's
 * port narrowed, or none, so a call never reaches the front end's files (an editor's buffers)
 * with more than its scope allows.
 *
 * @param tools The conversation's tools (their port and how to narrow it).
 * @param scope The narrowed scope's gate and grants.
 * @returns The same tools with the scope's port, or without one.
 *
 * @example
 * ```ts
 * import { withScopeFiles } from "./tool_offer.ts";
 * const tools = { jobOwner: "s1", files: {} as never };
 * const narrowed = withScopeFiles(tools, { gate: {} as never, grants: {} as never });
 * if ("files" in narrowed || narrowed.jobOwner !== "s1") throw new Error();
 * ```
 */
export function withScopeFiles<T extends Pick<ToolScope, "files" | "filesBehind">>(
  tools: T,
  scope: { gate: FileGate; grants: Grants },
): Omit<T, "files" | "filesBehind"> & { files?: FilePort; filesBehind?: FilesBehind } {
  const { files, filesBehind, ...rest } = tools;
  if (files === undefined || filesBehind === undefined) return rest;
  return { ...rest, files: filesBehind(scope), filesBehind };
}

/** The tools a conversation may offer: the set, and what narrows it. */
export interface ToolScope {
  set: ToolSet;
  /** The run's grants: tools they can never run are left out. Without them, none is. */
  grants?: Grants;
  /** The workspace the grants' relative paths are in. */
  workspace?: string;
  /** Built-in tools' own grants (web_search's engine): they decide whether it can run. */
  toolGrants?: ToolGrants;
  mode?: ToolMode;
  /** Where the built-in file tools read and write (the editor's, under ACP); default: their own. */
  files?: FilePort;
  /**
   * The same files behind a narrower scope's gate and grants (plan mode's, a subagent's). A
   * narrowed scope of a port without it gets no port: its calls use their workers' own files.
   */
  filesBehind?: FilesBehind;
  /** Where the calls run when not in `set` (plan mode's tools, built from its grants). */
  calls?: NarrowedCalls;
  /**
   * Whose background jobs the calls start and see (JobTable.scope): one of an editor's
   * sessions sharing the workspace. Left out: the front end's one session.
   */
  jobOwner?: string;
}

/**
 * The tools calls run in while a conversation is narrowed (plan mode): a set built from the
 * narrowed grants. The offer still lists the conversation's own set, so the prompt's prefix
 * (tools and all) stays byte for byte what the server cached; what a call can do is what the
 * narrowed workers and command sandbox let it.
 */
export interface NarrowedCalls {
  set: ToolSet;
  grants: Grants;
  /** Folders commands write into a throwaway copy of. */
  scratch?: readonly string[];
  /** The one folder the tools may write. */
  planFolder?: string;
  /** What a call of an offered tool the narrowed set lacks is told (an MCP server's tool). */
  lacking: string;
}

/**
 * What a conversation's calls bring besides the offer: its file port and its jobs' owner.
 *
 * @example
 * ```ts
 * import { callSeat, type ToolScope } from "./tool_offer.ts";
 * const scope = { jobOwner: "s1" } as unknown as ToolScope;
 * if (JSON.stringify(callSeat(scope)) !== '{"jobOwner":"s1"}') throw new Error();
 * ```
 */
export function callSeat(
  scope: Pick<ToolScope, "files" | "filesBehind" | "jobOwner">,
): { files?: FilePort; filesBehind?: FilesBehind; jobOwner?: string } {
  return {
    ...(scope.files ? { files: scope.files } : {}),
    ...(scope.files && scope.filesBehind ? { filesBehind: scope.filesBehind } : {}),
    ...(scope.jobOwner ? { jobOwner: scope.jobOwner } : {}),
  };
}

/** A tool left out, and the flag that would let it run. */
export interface UnavailableTool {
  name: string;
  description: string;
  flag: string;
}

/** What one request offers. */
export interface ToolOffer {
  /** The offered entries, as their sources made them. */
  entries: readonly ToolEntry[];
  /** Their descriptions as the model sees them (compact for small windows). */
  infos: readonly ToolInfo[];
  schemas: readonly ToolSchema[];
  /** An offered tool by name. */
  find(name: string): ToolEntry | undefined;
  /** The flag a loaded tool that is not offered needs; undefined for any other name. */
  missingFlag(name: string): string | undefined;
  /** The tools the grants leave out, each with its flag. */
  unavailable(): UnavailableTool[];
}

/** The last offer of each scope, kept while its set, window form and mode are the same. */
const offers = new WeakMap<
  ToolScope,
  {
    all: readonly ToolEntry[];
    compact: boolean;
    mode: ToolMode | undefined;
    calls: NarrowedCalls | undefined;
    offer: ToolOffer;
  }
>();

/**
 * What to offer now: the set's entries the grants let run and the mode allows, in compact
 * form below {@linkcode COMPACT_SCHEMA_BELOW} tokens of window.
 *
 * @param scope The set, the grants and the mode.
 * @param window The conversation's window in tokens, when known.
 * @returns The offer.
 */
export function offerTools(scope: ToolScope, window: number | undefined): ToolOffer {
  const all = scope.set.entries();
  const compact = window !== undefined && window < COMPACT_SCHEMA_BELOW;
  const known = offers.get(scope);
  if (
    known?.all === all && known.compact === compact && known.mode === scope.mode &&
    known.calls === scope.calls
  ) {
    return known.offer;
  }
  const missing = (info: ToolInfo) => missingOf(info, scope);
  const mode = scope.mode ?? { kind: "all" };
  const allowed = MODE_FILTERS[mode.kind] as (info: ToolInfo, mode: ToolMode) => boolean;
  const entries = all.filter((entry) =>
    missing(entry.info) === undefined && allowed(entry.info, mode)
  );
  const infos = entries.map((entry) => compact ? compactInfo(entry.info) : entry.info);
  const offer: ToolOffer = {
    entries,
    infos,
    schemas: infos.map(toToolSchema),
    find: (name) => runsIn(entries.find((entry) => entry.info.name === name), scope.calls),
    missingFlag(name) {
      const entry = all.find((e) => e.info.name === name);
      return entry === undefined ? undefined : missing(entry.info);
    },
    unavailable: () =>
      all.flatMap(({ info }) => {
        const flag = missing(info);
        return flag === undefined ? [] : [{ name: info.name, description: info.description, flag }];
      }),
  };
  offers.set(scope, { all, compact, mode: scope.mode, calls: scope.calls, offer });
  return offer;
}

/** The entry a call of an offered tool runs: the narrowed set's, or one that says it cannot. */
function runsIn(
  offered: ToolEntry | undefined,
  calls: NarrowedCalls | undefined,
): ToolEntry | undefined {
  if (offered === undefined || calls === undefined) return offered;
  const narrowed = calls.set.get(offered.info.name);
  if (narrowed) return narrowed;
  const result = makeToolResult({ errorType: "permission_denied", errorMessage: calls.lacking });
  return {
    info: offered.info,
    validate: (args) => Promise.resolve(ok(args)),
    run: (_args, call) => Promise.resolve({ result, state: call.state }),
  };
}

/** The flag a tool needs that the scope's grants (or the tool's own) do not give. */
function missingOf(info: ToolInfo, scope: ToolScope): string | undefined {
  const { grants, toolGrants, workspace = "." } = scope;
  if (!grants) return undefined;
  const own = grantFor(grants, toolGrants, { name: info.name, builtin: info.origin === "builtin" });
  if (own) return missingGrant(own.declared, own.grants, workspace);
  // The job tools serve run_command's jobs: offered when commands can run.
  const declared = isTool(info, JOB_TOOLS) ? { run: true, ...info.permissions } : info.permissions;
  return missingGrant(declared, grants, workspace);
}

function compactInfo(info: ToolInfo): ToolInfo {
  return {
    ...info,
    description: firstSentence(info.description),
    parameters: compactParameters(info.parameters),
  };
}

/**
 * The flag a tool's declared permissions need that the grants do not give, if any.
 *
 * @param declared The tool's `permissions`.
 * @param grants The user's grants.
 * @param workspace The workspace root (declared paths are relative to it).
 * @returns For example `--allow-write=.`, or undefined when the tool can run.
 *
 * @example
 * ```ts
 * import { missingGrant } from "./tool_offer.ts";
 * import { parseGrantFlags } from "../../cli/grant_flags.ts";
 * const parsed = parseGrantFlags(["--allow-read=."], { cwd: "/w" });
 * if (!parsed.ok) throw new Error();
 * const flag = missingGrant({ read: ["."], write: ["."] }, parsed.value.grants, "/w");
 * if (flag !== "--allow-write=.") throw new Error(flag);
 * if (missingGrant({ read: ["."] }, parsed.value.grants, "/w") !== undefined) throw new Error();
 * if (missingGrant({ read: ["."] }, { ...parsed.value.grants, allow: { ...parsed.value.grants.allow, read: [] } }, "/w") !== "--allow-read=.") throw new Error();
 * ```
 */
export function missingGrant(
  declared: ToolPermissions | undefined,
  grants: Grants,
  workspace: string,
): string | undefined {
  if (declared === undefined) return undefined;
  const { permissions } = effectivePermissions(grants, declared, { workspace });
  const wanted = Object.entries(declared).filter(([, value]) =>
    value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0)
  );
  const missing = wanted.filter(([kind]) =>
    permissions[kind as keyof typeof permissions] === false
  );
  // Reading is what most tools declare beside their real need (write_file checks paths): a
  // missing read alone leaves out only tools that do nothing but read.
  const decisive = wanted.length === 1 ? missing : missing.filter(([kind]) => kind !== "read");
  if (decisive.length === 0) return undefined;
  return decisive.map(([kind, value]) =>
    Array.isArray(value) ? `--allow-${kind}=${value.join(",")}` : `--allow-${kind}`
  ).join(" ");
}

/**
 * The compact form of a parameters schema: property descriptions, examples and titles
 * removed, everything that constrains the value kept.
 *
 * @example
 * ```ts
 * import { compactParameters } from "./tool_offer.ts";
 * const out = compactParameters({
 *   type: "object",
 *   properties: { path: { type: "string", description: "Workspace-relative path" } },
 * });
 * if (JSON.stringify(out) !== '{"type":"object","properties":{"path":{"type":"string"}}}') {
 *   throw new Error(JSON.stringify(out));
 * }
 * ```
 */
export function compactParameters(schema: Record<string, unknown>): Record<string, unknown> {
  const strip = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((item) => strip(item));
    if (typeof value !== "object" || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) {
      // Inside `properties` the keys are parameter names, never annotations.
      const annotation = key !== "properties" &&
        ["description", "examples", "title", "$schema"].includes(name);
      if (!annotation) out[name] = strip(inner, name);
    }
    return out;
  };
  return strip(schema) as Record<string, unknown>;
}

/**
 * The first sentence of a description (up to the first ". " or line break).
 *
 * @example
 * ```ts
 * import { firstSentence } from "./tool_offer.ts";
 * if (firstSentence("Read a file. Long ones are curated.") !== "Read a file.") throw new Error();
 * ```
 */
export function firstSentence(text: string): string {
  const line = text.split("\n", 1)[0]!.trim();
  const end = line.search(/\.\s/);
  return end < 0 ? line : line.slice(0, end + 1);
}
