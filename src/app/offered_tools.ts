// The tools the model is offered: a tool the sandbox can never run (it declares a permission
// the user's grants leave empty, such as write_file with only --allow-read=.) is left out, so
// its schema costs no context and the model never tries it; /tools lists it with the flag that
// would enable it. Below a window size, schemas go in their compact form (first sentence of
// each description, no parameter descriptions or examples).

import type { Result } from "../errors.ts";
import type { Grants } from "../sandbox/grants.ts";
import { effectivePermissions } from "../sandbox/effective_permissions.ts";
import { grantFor, type ToolGrants } from "../sandbox/tool_grants.ts";
import type { ToolPermissions } from "../tools/define_tool.ts";
import type { ToolInfo, ToolRun, ToolRunner } from "../tools/tool_runner.ts";
import type { PreviewResult } from "../tools/file_change.ts";
import { JOB_TOOLS } from "../jobs/job_control.ts";

/**
 * Windows below this many tokens get compact schemas. Measured with bench/context_bench.ts:
 * the 17 built-in tools take about 2,250 tokens in full and 1,430 compact (11 tools and 850
 * tokens with --allow-read=. only). In full they take 28% of an 8k window and 14% of a 16k
 * one; from 16k up the saving no longer matters next to the conversation.
 */
export const COMPACT_SCHEMA_BELOW = 16_384;

/** A tool left out, and the flag that would let it run. */
export interface UnavailableTool {
  name: string;
  description: string;
  flag: string;
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
 * import { missingGrant } from "./offered_tools.ts";
 * import { parseGrantFlags } from "../cli/grant_flags.ts";
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
 * import { compactParameters } from "./offered_tools.ts";
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
 * import { firstSentence } from "./offered_tools.ts";
 * if (firstSentence("Read a file. Long ones are curated.") !== "Read a file.") throw new Error();
 * ```
 */
export function firstSentence(text: string): string {
  const line = text.split("\n", 1)[0]!.trim();
  const end = line.search(/\.\s/);
  return end < 0 ? line : line.slice(0, end + 1);
}

/** Options of {@linkcode OfferedTools}. */
export interface OfferedToolsOptions {
  grants: Grants;
  workspace: string;
  /** The context window; below {@linkcode COMPACT_SCHEMA_BELOW} schemas are compact. */
  contextWindow: () => number | undefined;
  /** Built-in tools' own grants (web_search's engine): they decide whether it can run. */
  toolGrants?: ToolGrants;
}

/** A ToolRunner that offers only the tools the sandbox can run, compact for small windows. */
export class OfferedTools implements ToolRunner {
  #cache: { from: readonly ToolInfo[]; compact: boolean; list: ToolInfo[] } | undefined;

  constructor(readonly inner: ToolRunner, readonly options: OfferedToolsOptions) {}

  ready(): Promise<void> {
    return this.inner.ready?.() ?? Promise.resolve();
  }

  /** Whether schemas are sent in their compact form. */
  get compact(): boolean {
    const window = this.options.contextWindow();
    return window !== undefined && window < COMPACT_SCHEMA_BELOW;
  }

  list(): readonly ToolInfo[] {
    const from = this.inner.list();
    const compact = this.compact;
    if (this.#cache?.from === from && this.#cache.compact === compact) return this.#cache.list;
    const list = from
      .filter((tool) => this.#missing(tool) === undefined)
      .map((tool) =>
        compact
          ? {
            ...tool,
            description: firstSentence(tool.description),
            parameters: compactParameters(tool.parameters),
          }
          : tool
      );
    this.#cache = { from, compact, list };
    return list;
  }

  /** The tools left out, each with the flag that would enable it. */
  unavailable(): UnavailableTool[] {
    return this.inner.list().flatMap((tool) => {
      const flag = this.#missing(tool);
      return flag === undefined ? [] : [{ name: tool.name, description: tool.description, flag }];
    });
  }

  unavailableReason(name: string): string | undefined {
    const tool = this.inner.list().find((t) => t.name === name);
    return tool === undefined ? undefined : this.#missing(tool);
  }

  validate(name: string, args: unknown): Promise<Result<unknown, string[]>> {
    return this.inner.validate(name, args);
  }

  preview(
    name: string,
    args: unknown,
    state?: Record<string, unknown>,
  ): Promise<PreviewResult | undefined> {
    return this.inner.preview?.(name, args, state) ?? Promise.resolve(undefined);
  }

  run(
    name: string,
    args: unknown,
    context: Parameters<ToolRunner["run"]>[2],
  ): Promise<ToolRun> {
    return this.inner.run(name, args, context);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  #missing(tool: ToolInfo): string | undefined {
    const { grants, toolGrants, workspace } = this.options;
    const own = grantFor(grants, toolGrants, {
      name: tool.name,
      builtin: tool.origin === "builtin",
    });
    if (own) return missingGrant(own.declared, own.grants, workspace);
    // The job tools serve run_command's jobs: offered when commands can run.
    const jobs = tool.origin === "builtin" && JOB_TOOLS.has(tool.name);
    const declared = jobs ? { run: true, ...tool.permissions } : tool.permissions;
    return missingGrant(declared, grants, workspace);
  }
}
