// Settings from config files and flags. `~/.config/harness/config.jsonc` is read first,
// then `./.harness/config.jsonc` (which wins), then flags (which win over both). Errors name
// the file, line and column; nothing falls back silently. `--plugins` folders must exist.
// The project config comes with a cloned repository: until the user trusts its content
// (config_trust.ts), only the keys of PROJECT_CONFIG_SAFE_KEYS apply from it.

import { httpUrlProblem } from "../platform/http_url.ts";
import { ownField } from "../platform/json_values.ts";
import { jsonDepth, MAX_JSON_DEPTH } from "../platform/json_depth.ts";
import { paths } from "../platform/paths.ts";
import { configDir } from "./folders.ts";
import { linkOutOfWorkspace } from "./workspace_link.ts";
import { realPathIfExists } from "../platform/real_path_if_exists.ts";
import { DEFAULT_INSTRUCTION_FILES } from "./project_instructions.ts";
import type { ParseError } from "jsonc-parser";
import { err, ok, type Result } from "../errors.ts";
import { isAnthropicBaseUrl } from "../providers/anthropic/base_url.ts";
// Type only: config_trust.ts (and node:path) load only when a project config needs trust.
import type { ConfigTrustOptions } from "./config_trust.ts";
import { checkMcpServers, type McpServerConfig } from "./mcp_config.ts";
import { type ModelSource, parseModelSource } from "../providers/model_source.ts";
import { DEFAULT_TURN_OUTPUT_LIMITS } from "../providers/turn_output_cap.ts";
import { checkHooks, type HooksConfig, readHooks } from "./hooks_config.ts";

export const DEFAULT_BASE_URL = "http://127.0.0.1:11434/v1";

export interface Settings {
  baseUrl: string;
  model?: string;
  apiKey?: string;
  provider?: "openai" | "ollama" | "anthropic";
  maxIterations: number;
  maxToolCalls: number;
  numCtx: number;
  toolCallIds: "native" | "short";
  textToolCalls: boolean;
  modelFile?: string;
  ctxSize?: number;
  gpu: "auto" | "off";
  /** Per-tool timeouts in ms. */
  toolTimeouts: Record<string, number>;
  /** Seconds one plugin file's import (its top level) may take before it is skipped. */
  pluginImportTimeout: number;
  /** Hard cap on a tool result in bytes (1 MiB). */
  maxOutputSize: number;
  /** Cap on what the model reads from one result, in characters (30,000). */
  toolOutputLimit: number;
  /** Extra plugin folders from config (flags add more). */
  plugins: string[];
  /** The `plugins` folders named with --plugins (they vouch for their files); config's never. */
  namedPluginDirs: string[];
  /** Replaces the built-in system prompt. */
  systemPrompt?: string;
  /** read_file of a long file returns its outline and relevant sections ("auto") or all. */
  curator: "auto" | "off";
  /** Commands run in the OS sandbox when one works ("auto"), always ("required") or never. */
  commandSandbox: "auto" | "required" | "off";
  /** Commands may write `.git` (it is read-only in the command sandbox by default). */
  writableGit: boolean;
  /** Seconds after which a command run without timeout_ms moves to the background; 0: never. */
  commandBackgroundAfter: number;
  /** Start the language servers configured (.lsp.json, opencode's `lsp`) for edit diagnostics. */
  lsp: boolean;
  /** Milliseconds a language server may take to answer after an edit before it is skipped. */
  lspTimeout: number;
  /** The context window in tokens, overriding what the server states (--context-length). */
  contextLength?: number;
  /** Seconds to wait for a model's first streamed byte (prompt processing can take minutes). */
  firstByteTimeout: number;
  /** Seconds of silence allowed between stream chunks once streaming has begun. */
  stallTimeout: number;
  /** Compact the conversation when a request would fill this percentage of the window. */
  compactAt: number;
  /** Streamed pieces (about one token each) one model turn may send before it is stopped. */
  maxTurnTokens: number;
  /** Bytes one model turn may stream before it is stopped (memory and the session log). */
  maxTurnBytes: number;
  /** The identical call with the same result answered without running (src/agent/loop_guard.ts); 0 turns it off. */
  loopGuard: number;
  /** No base URL, provider or model file was given: look for a local server. */
  discover?: boolean;
  /** MCP servers by name (src/config/mcp_config.ts); the project file adds to the user's. */
  mcpServers: Record<string, McpServerConfig>;
  /** The model offered to run in-process when no server answers (model_source.ts). */
  defaultModel?: ModelSource;
  /** search_code's embedding model ("off": none is looked for); unset: the server's first. */
  embeddingModel?: string;
  /** The server embeddings come from (default: the model server); an Ollama root or a /v1 URL. */
  embeddingBaseUrl?: string;
  /** The user's hooks, in Claude Code's shape (src/hooks/). */
  hooks?: HooksConfig;
  /** The project config's hooks (only once the project config is trusted). */
  projectHooks?: HooksConfig;
  /** Snapshots of the write grant before turns that may change files, for /undo and /rewind. */
  checkpoints: boolean;
  /** Files larger than this (bytes) are left out of checkpoints. */
  checkpointMaxFileSize: number;
  /** Whether the model can see images: "auto" asks the server. */
  vision: "auto" | boolean;
  /** Largest image (bytes) sent to the model. */
  imageMaxSize: number;
  /** Instruction file names read per folder, the first present wins (project_instructions.ts). */
  instructionFiles: string[];
  /** How deep subagents may nest (src/sandbox/grants/child_scope.ts): 1 allows children only. */
  maxAgentDepth: number;
  /** Plan mode's plans go to this workspace folder (`plans`); unset: harness's data folder. */
  planFolder?: string;
  /**
   * The search engine of `web_search`: a SearXNG base URL, or a URL template with `{query}`.
   * Unset: the tool is not offered and nothing searches (plugins/web_search.ts).
   */
  webSearchUrl?: string;
}

/** The settings a flag or a config file can set, by the same names; absent means "not given". */
export type SettingFlags = Partial<
  Pick<
    Settings,
    | "baseUrl"
    | "model"
    | "apiKey"
    | "provider"
    | "maxIterations"
    | "maxToolCalls"
    | "numCtx"
    | "toolCallIds"
    | "textToolCalls"
    | "modelFile"
    | "ctxSize"
    | "gpu"
    | "curator"
    | "commandSandbox"
    | "writableGit"
    | "contextLength"
    | "firstByteTimeout"
    | "stallTimeout"
    | "webSearchUrl"
  >
>;

export const DEFAULT_SETTINGS: Settings = {
  baseUrl: DEFAULT_BASE_URL,
  maxIterations: 10,
  maxToolCalls: 15,
  numCtx: 8192,
  toolCallIds: "native",
  textToolCalls: true,
  gpu: "auto",
  toolTimeouts: {},
  pluginImportTimeout: 5,
  maxOutputSize: 1024 * 1024,
  toolOutputLimit: 30_000,
  plugins: [],
  namedPluginDirs: [],
  curator: "auto",
  commandSandbox: "auto",
  writableGit: false,
  commandBackgroundAfter: 60,
  lsp: true,
  lspTimeout: 3000,
  firstByteTimeout: 600,
  stallTimeout: 120,
  compactAt: 85,
  maxTurnTokens: DEFAULT_TURN_OUTPUT_LIMITS.maxTokens,
  maxTurnBytes: DEFAULT_TURN_OUTPUT_LIMITS.maxBytes,
  loopGuard: 3,
  mcpServers: {},
  checkpoints: true,
  checkpointMaxFileSize: 5 * 1024 * 1024,
  vision: "auto",
  imageMaxSize: 10 * 1024 * 1024,
  instructionFiles: [...DEFAULT_INSTRUCTION_FILES],
  maxAgentDepth: 1,
};

const SETTING_FLAG_KEYS: readonly (keyof SettingFlags)[] = [
  "baseUrl",
  "model",
  "apiKey",
  "provider",
  "maxIterations",
  "maxToolCalls",
  "numCtx",
  "toolCallIds",
  "textToolCalls",
  "modelFile",
  "ctxSize",
  "gpu",
  "curator",
  "commandSandbox",
  "writableGit",
  "contextLength",
  "firstByteTimeout",
  "stallTimeout",
  "webSearchUrl",
];

type Checker = (value: unknown) => string | undefined;
const isString: Checker = (v) => typeof v === "string" ? undefined : "expected a string";
const isNonEmptyString: Checker = (v) =>
  typeof v === "string" && v !== "" ? undefined : "expected a non-empty string";
/** The same rule as the --base-url flag (src/cli/args.ts). */
const isHttpUrl: Checker = (v) => {
  if (typeof v !== "string" || !/^https?:\/\/[^/]/.test(v)) {
    return `expected an http:// or https:// URL such as "${DEFAULT_BASE_URL}", not ${
      JSON.stringify(v)
    }`;
  }
  const problem = httpUrlProblem(v);
  return problem === undefined ? undefined : `${JSON.stringify(v)} is ${problem}`;
};
/** A SearXNG base URL or a URL template with `{query}` (src/tools/builtin/web_search_engine.ts). */
const isSearchUrl: Checker = (v) => {
  if (typeof v !== "string" || !/^https?:\/\/[^/]/.test(v)) {
    return `expected a SearXNG URL such as "http://127.0.0.1:8888" or an http(s) URL template ` +
      `with {query}, not ${JSON.stringify(v)}`;
  }
  const problem = httpUrlProblem(v.replaceAll("{query}", "q"));
  return problem === undefined ? undefined : `${JSON.stringify(v)} is ${problem}`;
};
const isPositive: Checker = (v) =>
  typeof v === "number" && Number.isInteger(v) && v > 0
    ? undefined
    : "expected a positive whole number";
const isPercent: Checker = (v) =>
  typeof v === "number" && Number.isInteger(v) && v >= 10 && v <= 100
    ? undefined
    : "expected a whole percentage from 10 to 100";
const isLoopGuard: Checker = (v) =>
  v === 0 || (typeof v === "number" && Number.isInteger(v) && v >= 2)
    ? undefined
    : "expected 0 (off) or a whole number from 2: the identical call that is not run again";
const isWholeOrZero: Checker = (v) =>
  typeof v === "number" && Number.isInteger(v) && v >= 0
    ? undefined
    : "expected 0 (never) or a positive whole number";
const isBoolean: Checker = (v) => typeof v === "boolean" ? undefined : "expected true or false";
const isOneOf = (...values: string[]): Checker => (v) =>
  typeof v === "string" && values.includes(v) ? undefined : `expected one of ${values.join(", ")}`;
const isStringArray: Checker = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === "string")
    ? undefined
    : "expected a list of strings";
/** File names only: a path could make a project's settings read a file anywhere. */
const isFileNameList: Checker = (v) =>
  Array.isArray(v) &&
    v.every((x) => typeof x === "string" && /^[^/\\]+$/.test(x) && x !== "." && x !== "..")
    ? undefined
    : 'expected a list of file names without folders, e.g. ["AGENTS.md", "CLAUDE.md"]';
const isTimeoutMap: Checker = (v) =>
  typeof v === "object" && v !== null && !Array.isArray(v) &&
    Object.values(v).every((x) => isPositive(x) === undefined)
    ? undefined
    : 'expected an object of tool names to milliseconds, e.g. { "run_command": 600000 }';

const FIELDS: Record<string, [keyof Settings, Checker]> = {
  base_url: ["baseUrl", isHttpUrl],
  model: ["model", isNonEmptyString],
  api_key: ["apiKey", isNonEmptyString],
  provider: ["provider", isOneOf("openai", "ollama", "anthropic")],
  max_iterations: ["maxIterations", isPositive],
  max_tool_calls: ["maxToolCalls", isPositive],
  num_ctx: ["numCtx", isPositive],
  tool_call_ids: ["toolCallIds", isOneOf("native", "short")],
  text_tool_calls: ["textToolCalls", isBoolean],
  model_file: ["modelFile", isNonEmptyString],
  ctx_size: ["ctxSize", isPositive],
  gpu: ["gpu", isOneOf("auto", "off")],
  tool_timeouts: ["toolTimeouts", isTimeoutMap],
  plugin_import_timeout: ["pluginImportTimeout", isPositive],
  max_output_size: ["maxOutputSize", isPositive],
  tool_output_limit: ["toolOutputLimit", isPositive],
  plugins: ["plugins", isStringArray],
  system_prompt: ["systemPrompt", isString],
  curator: ["curator", isOneOf("auto", "off")],
  command_sandbox: ["commandSandbox", isOneOf("auto", "required", "off")],
  writable_git: ["writableGit", isBoolean],
  command_background_after: ["commandBackgroundAfter", isWholeOrZero],
  lsp: ["lsp", isBoolean],
  lsp_timeout: ["lspTimeout", isPositive],
  context_length: ["contextLength", isPositive],
  first_byte_timeout: ["firstByteTimeout", isPositive],
  stall_timeout: ["stallTimeout", isPositive],
  compact_at: ["compactAt", isPercent],
  max_turn_tokens: ["maxTurnTokens", isPositive],
  max_turn_bytes: ["maxTurnBytes", isPositive],
  loop_guard: ["loopGuard", isLoopGuard],
  mcp_servers: ["mcpServers", checkMcpServers],
  embedding_model: ["embeddingModel", isNonEmptyString],
  embedding_base_url: ["embeddingBaseUrl", isHttpUrl],
  hooks: ["hooks", checkHooks],
  checkpoints: ["checkpoints", isBoolean],
  checkpoint_max_file_size: ["checkpointMaxFileSize", isPositive],
  vision: [
    "vision",
    (v) => v === "auto" || typeof v === "boolean" ? undefined : 'expected "auto", true or false',
  ],
  image_max_size: ["imageMaxSize", isPositive],
  instruction_files: ["instructionFiles", isFileNameList],
  max_agent_depth: ["maxAgentDepth", isPositive],
  plan_folder: ["planFolder", isNonEmptyString],
  web_search_url: ["webSearchUrl", isSearchUrl],
  default_model: ["defaultModel", (v) => {
    const parsed = parseModelSource(v);
    return typeof parsed === "string" ? parsed : undefined;
  }],
};

/**
 * The keys an untrusted project config may set: the model's name and limits. Every other key
 * runs code (`plugins`, `model_file`, `default_model`: a model file llama.cpp parses, which
 * `default_model` also downloads), moves data (`base_url`, `api_key`, `provider`, and
 * `embedding_model` and `embedding_base_url`, which send every definition's text, and
 * `web_search_url`, which sends the model's queries), changes
 * what the model is told (`system_prompt`) or how long tools may run (`tool_timeouts`), so
 * it applies only once the user trusts the file's content.
 */
export const PROJECT_CONFIG_SAFE_KEYS: readonly string[] = [
  "model",
  // Applies only when stricter than the user's (see loadSettings).
  "command_sandbox",
  "max_iterations",
  "max_tool_calls",
  "plugin_import_timeout",
  "num_ctx",
  "context_length",
  "first_byte_timeout",
  "stall_timeout",
  "compact_at",
  "max_turn_tokens",
  "max_turn_bytes",
  "loop_guard",
  "ctx_size",
  "max_output_size",
  "tool_output_limit",
  "tool_call_ids",
  "text_tool_calls",
  "gpu",
  "curator",
  "lsp_timeout",
  "vision",
  "image_max_size",
];

/** A UTF-8 byte order mark as decoded text; editors on Windows may start files with one. */
const BOM = "\uFEFF";

/**
 * Parses one config file's text into partial settings.
 *
 * @param file The file name, for error messages.
 * @param textWithBom The JSONC text, optionally starting with a byte order mark. An empty or
 * comment-only text sets nothing.
 * @returns Partial settings or a `config_invalid` error naming the file; a syntax error reads
 * `line 3, column 21: expected a value: fix the file or move it away`, as in policy files.
 * The JSONC parser is imported on the first call: without config files, start-up never
 * pays for loading an npm package (about 30 ms in Deno).
 *
 * @example
 * ```ts
 * import { parseConfigText } from "./settings.ts";
 * const r = await parseConfigText("c.jsonc", '{ "model": "qwen3", // mine\n }');
 * if (!r.ok || r.value.model !== "qwen3") throw new Error();
 * const bad = await parseConfigText("c.jsonc", '{ "model": }');
 * if (bad.ok || !JSON.stringify(bad.error).includes("line 1, column 12: expected a value")) {
 *   throw new Error();
 * }
 * ```
 */
export async function parseConfigText(
  file: string,
  textWithBom: string,
): Promise<Result<Partial<Settings>>> {
  const text = textWithBom.startsWith(BOM) ? textWithBom.slice(1) : textWithBom;
  const [{ parse, stripComments }, { jsoncErrorReason }] = await Promise.all([
    import("jsonc-parser"),
    import("../platform/jsonc_error_reason.ts"),
  ]);
  if (stripComments(text).trim() === "") return ok({});
  // The parser recurses: a file nested thousands deep would overflow its stack.
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    return err({
      kind: "config_invalid",
      file,
      reason: `values nest more than ${MAX_JSON_DEPTH} levels deep: fix the file or move it away`,
    });
  }
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true });
  const first = errors[0];
  if (first) {
    return err({
      kind: "config_invalid",
      file,
      reason: `${jsoncErrorReason(text, first)}: fix the file or move it away`,
    });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return err({
      kind: "config_invalid",
      file,
      reason: 'expected a JSON object at the top level, like { "model": "qwen3" }',
    });
  }
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const field = ownField(FIELDS, key);
    if (!field) {
      return err({
        kind: "config_invalid",
        file,
        reason: `unknown setting "${key}": known settings are ${Object.keys(FIELDS).join(", ")}`,
      });
    }
    const problem = field[1](raw);
    if (problem) return err({ kind: "config_invalid", file, reason: `"${key}": ${problem}` });
    out[field[0]] = key === "base_url" || key === "embedding_base_url" ||
        (key === "web_search_url" && !String(raw).includes("{query}"))
      ? String(raw).replace(/\/+$/, "")
      : key === "default_model"
      ? parseModelSource(raw)
      : key === "hooks"
      ? readHooks(raw)
      : raw;
  }
  return ok(out as Partial<Settings>);
}

async function readConfigFile(
  file: string,
): Promise<Result<{ text: string; settings: Partial<Settings> }>> {
  let text: string;
  try {
    text = Deno.readTextFileSync(file); // the prompt waits for it either way
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return ok({ text: "", settings: {} });
    return err({ kind: "config_invalid", file, reason: (error as Error).message });
  }
  const parsed = await parseConfigText(file, text);
  return parsed.ok ? ok({ text, settings: parsed.value }) : parsed;
}

/** The project config's settings that apply: all when trusted, else the safe keys only. */
async function trustedPart(
  file: string,
  text: string,
  settings: Partial<Settings>,
  trust: ConfigTrustOptions & { env: (name: string) => string | undefined },
): Promise<Partial<Settings>> {
  const acting = Object.entries(FIELDS).filter(([key, [name]]) =>
    !PROJECT_CONFIG_SAFE_KEYS.includes(key) && name in settings
  );
  if (acting.length === 0) return settings;
  const { settleProjectConfig } = await import("./config_trust.ts");
  const { configScripts } = await import("./trusted_scripts.ts");
  const keys = acting.map(([key]) => key);
  const cwd = paths.resolve(file, "..", "..");
  const scope = {
    workspace: realPathIfExists(cwd) ?? cwd,
    scripts: await configScripts(settings, cwd),
  };
  if (await settleProjectConfig(file, text, keys, { ...trust, scope })) return settings;
  const safe: Record<string, unknown> = { ...settings };
  for (const [, [name]] of acting) delete safe[name];
  return safe as Partial<Settings>;
}

/**
 * Loads settings: defaults, then the user config, the project config, then flags. Of the
 * project config, only PROJECT_CONFIG_SAFE_KEYS apply until the user trusts its content:
 * the REPL (`trust.interactive`) asks once per content; otherwise one line on `trust.io`
 * (default stderr) names the keys ignored and how to trust them.
 *
 * @param flags Settings given on the command line.
 * @param options Working directory, environment lookup and trust I/O (seams for tests).
 * @returns The settings; a `config_invalid` error naming the file, or a `usage` error for a
 * `--plugins` folder that does not exist. Both exit 2. An empty `$HARNESS_API_KEY` counts
 * as unset, so `$OPENAI_API_KEY` (`$ANTHROPIC_API_KEY` for the Anthropic API) still applies,
 * but only to a server the user named (never one found on a local port).
 */
export async function loadSettings(
  flags: SettingFlags & { plugins?: string[] },
  options: {
    cwd: string;
    env?: (name: string) => string | undefined;
    trust?: Partial<ConfigTrustOptions>;
  },
): Promise<Result<Settings>> {
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const settings: Settings = structuredClone(DEFAULT_SETTINGS);
  const user = await readConfigFile(paths.join(configDir(env), "config.jsonc"));
  if (!user.ok) return user;
  Object.assign(settings, user.value.settings);
  let serverGiven = user.value.settings.baseUrl !== undefined;
  const projectFile = paths.join(options.cwd, ".harness", "config.jsonc");
  const stderr = (text: string) => Deno.stderr.writeSync(new TextEncoder().encode(text));
  const io = options.trust?.io ?? { write: stderr };
  // A .harness or config that is a link out of the workspace is another folder's (issue 38).
  const linked = linkOutOfWorkspace(options.cwd, projectFile);
  if (linked !== undefined) io.write(`Warning: ${linked}\n`);
  const project = linked === undefined
    ? await readConfigFile(projectFile)
    : ok({ text: "", settings: {} });
  if (!project.ok) return project;
  const fromProject = await trustedPart(projectFile, project.value.text, project.value.settings, {
    interactive: options.trust?.interactive ?? false,
    io,
    ...(options.trust?.storeFile ? { storeFile: options.trust.storeFile } : {}),
    ...(options.trust?.writable ? { writable: options.trust.writable } : {}),
    env,
    cwd: options.trust?.cwd ?? options.cwd,
  });
  // A cloned repository's config may make commands stricter, never looser.
  const order = ["off", "auto", "required"];
  if (
    fromProject.commandSandbox !== undefined &&
    order.indexOf(fromProject.commandSandbox) < order.indexOf(settings.commandSandbox)
  ) {
    delete fromProject.commandSandbox;
  }
  // A trusted project's MCP servers add to the user's (the same name: the project's wins).
  const servers = { ...settings.mcpServers, ...(fromProject.mcpServers ?? {}) };
  // A trusted project's hooks run besides the user's (in the command sandbox), never instead.
  const { hooks: projectHooks, ...rest } = fromProject;
  Object.assign(settings, rest, { mcpServers: servers });
  if (projectHooks !== undefined) settings.projectHooks = projectHooks;
  if (fromProject.baseUrl !== undefined) serverGiven = true;
  // A config's plugin folder stays optional (the config may serve several machines), but a
  // missing one is said once instead of silently loading nothing.
  const pluginsFile = fromProject.plugins !== undefined
    ? projectFile
    : paths.join(configDir(env), "config.jsonc");
  for (const dir of settings.plugins) {
    const missingDir = await missingPluginFolder([dir], options.cwd);
    if (missingDir === undefined) continue;
    io.write(
      `Warning: plugin folder "${missingDir.dir}" ${missingDir.problem}: fix "plugins" in ${pluginsFile}; its tools are not loaded\n`,
    );
  }
  for (const key of SETTING_FLAG_KEYS) {
    const value = flags[key];
    if (value !== undefined) (settings as unknown as Record<string, unknown>)[key] = value;
  }
  if (
    !serverGiven && flags.baseUrl === undefined && settings.provider === undefined &&
    settings.modelFile === undefined
  ) {
    settings.discover = true;
  }
  const missing = await missingPluginFolder(flags.plugins ?? [], options.cwd);
  if (missing !== undefined) {
    return err({
      kind: "usage",
      message: `Plugin folder "${missing.dir}" ${missing.problem}: check --plugins`,
    });
  }
  settings.plugins = [...settings.plugins, ...(flags.plugins ?? [])];
  settings.namedPluginDirs = [...(flags.plugins ?? [])];
  if (settings.apiKey === undefined) {
    // An empty variable counts as unset, as in most shells' `${VAR:-default}`. A vendor's
    // variable goes only to that vendor's API: an OpenAI key never reaches Anthropic.
    const anthropic = settings.provider === "anthropic" ||
      (settings.provider === undefined && settings.modelFile === undefined &&
        isAnthropicBaseUrl(settings.baseUrl));
    // A hosted vendor's key goes only to a server the user named, never to whatever answers
    // on a local port when harness looks for one (issue 38).
    const fromEnv = env("HARNESS_API_KEY") ||
      (settings.discover ? undefined : env(anthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"));
    if (fromEnv) settings.apiKey = fromEnv;
  }
  return ok(settings);
}

/**
 * The first of `dirs` that does not exist or is not a folder. A missing `--plugins` folder is
 * an error, a config file's a warning; the default ones (./plugins, the user folder) stay
 * optional and are not checked: src/plugin_loader/load_plugins.ts skips them when missing.
 */
async function missingPluginFolder(
  dirs: readonly string[],
  cwd: string,
): Promise<{ dir: string; problem: string } | undefined> {
  for (const dir of dirs) {
    try {
      const info = await Deno.stat(paths.resolve(cwd, dir));
      if (!info.isDirectory) return { dir, problem: "is not a folder" };
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return { dir, problem: "does not exist" };
      // Unreadable folders are reported by discoverPlugins with the reason.
    }
  }
  return undefined;
}
