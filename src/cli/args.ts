// Command-line parsing for harness (DESIGN.md, "The command-line contract"). Deno permission
// flags are taken out first by grant_flags.ts; this module parses the rest into a
// typed Command or a one-line usage error (exit 2).

import { httpUrlProblem } from "../platform/http_url.ts";
import { err, ok, type Result } from "../errors.ts";
import { type FlagSpec, parseFlags } from "./parse_flags.ts";
import type { RunFlags } from "../app/run_flags.ts";

export { HELP } from "./help_text.ts";

export type Command =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "run"; flags: RunFlags }
  | { kind: "tool"; flags: RunFlags; name: string; json: string }
  | {
    kind: "sessions";
    flags: RunFlags;
    action: "list" | "export" | "search" | "delete" | "import";
    arg?: string;
    /** `--format md|jsonl` of export (jsonl when left out). */
    format?: "md" | "jsonl";
    /** `--output FILE` of export (stdout when left out). */
    output?: string;
    /** `--limit N`: at most N rows (list and search; 50 when left out). */
    limit?: number;
    /** `--all`: list sessions in which nothing was said too. */
    all?: boolean;
  }
  | { kind: "policy_explain"; flags: RunFlags; tool: string; json: string }
  | { kind: "plugin_new"; flags: RunFlags; name: string }
  /** `harness plugin trust [PATH...]`: trust project plugin files as they are now. */
  | { kind: "plugin_trust"; flags: RunFlags; paths: string[] }
  | { kind: "acp"; flags: RunFlags }
  | { kind: "index"; flags: RunFlags }
  /** `harness stats [--since WHEN] [--json]`: usage analytics (src/cli/commands/stats_command.ts). */
  | { kind: "stats"; flags: RunFlags; since?: string; json: boolean }
  /** `harness mcp ...`: its arguments are parsed by src/cli/commands/mcp_command.ts. */
  | { kind: "mcp"; flags: RunFlags; args: string[] }
  /** `harness doctor [--json]`: probes the model server (src/cli/commands/doctor_command.ts). */
  | { kind: "doctor"; flags: RunFlags; json?: boolean }
  /** `harness agents [trust]` and `harness skills [trust]` (src/cli/commands/agents_command.ts). */
  | { kind: "agents" | "skills"; flags: RunFlags; trust: boolean };

function usage(message: string): { ok: false; error: { kind: "usage"; message: string } } {
  return err({ kind: "usage", message });
}

function positiveInt(flag: string, value: string | undefined): Result<number | undefined> {
  if (value === undefined) return ok(undefined);
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    return usage(`Invalid value for ${flag} "${value}": expected a positive whole number`);
  }
  return ok(n);
}

function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): Result<T | undefined> {
  if (value === undefined) return ok(undefined);
  if ((allowed as readonly string[]).includes(value)) return ok(value as T);
  return usage(`Invalid value for ${flag} "${value}": expected one of ${allowed.join(", ")}`);
}

const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
const SANDBOX_MODES = ["auto", "required", "off"] as const;

/** harness's own flags as the parser knows them; docs/cli.md lists every one (tests/docs). */
export const FLAGS = {
  print: { type: "string", short: "p" },
  "base-url": { type: "string" },
  model: { type: "string" },
  "api-key": { type: "string" },
  provider: { type: "string" },
  "max-iterations": { type: "string" },
  "max-tool-calls": { type: "string" },
  yes: { type: "boolean", short: "y" },
  policies: { type: "string" },
  plugins: { type: "string", multiple: true },
  resume: { type: "string" },
  continue: { type: "boolean", short: "c" },
  "no-session": { type: "boolean" },
  plan: { type: "boolean" },
  "output-format": { type: "string" },
  "num-ctx": { type: "string" },
  "context-length": { type: "string" },
  "first-byte-timeout": { type: "string" },
  "stall-timeout": { type: "string" },
  "tool-call-ids": { type: "string" },
  "no-text-tool-calls": { type: "boolean" },
  "text-tool-calls": { type: "string" },
  "no-curator": { type: "boolean" },
  "model-file": { type: "string" },
  "ctx-size": { type: "string" },
  gpu: { type: "string" },
  limit: { type: "string" },
  all: { type: "boolean" },
  format: { type: "string" },
  output: { type: "string" },
  since: { type: "string" },
  json: { type: "boolean" },
  "command-sandbox": { type: "string" },
  "writable-git": { type: "boolean" },
  "web-search-url": { type: "string" },
  version: { type: "boolean", short: "V" },
  help: { type: "boolean", short: "h" },
} as const satisfies Record<string, FlagSpec>;

/**
 * The subcommand words; grant_flags.ts, which runs first, uses them to tell a stray value from a
 * subcommand.
 */
export const SUBCOMMANDS = [
  "tool",
  "sessions",
  "policy",
  "plugin",
  "acp",
  "index",
  "mcp",
  "stats",
  "doctor",
  "agents",
  "skills",
] as const;

/** Flags whose value may be left out (`--resume` alone lists sessions to pick from). */
export const OPTIONAL_VALUE_FLAGS = ["--resume"] as const;

/** The letters of harness's short boolean flags (`-y`, `-c`, ...), for the same check. */
export const SHORT_BOOLEAN_LETTERS: string = Object.values(FLAGS as Record<string, FlagSpec>)
  .flatMap((spec) => spec.type === "boolean" && spec.short ? [spec.short] : []).join("");

/** What to write instead of an empty value, per flag; an empty value is never meant. */
const EMPTY_VALUE_HINTS: Partial<Record<keyof typeof FLAGS, string>> = {
  print: 'give the prompt text, or "-" to read it from stdin',
  model: "give a model name, or leave the flag out to use the only model the server lists",
  "base-url": `give an http:// or https:// URL, e.g. --base-url=http://127.0.0.1:11434/v1`,
  "api-key": "give the key, or leave the flag out to use $HARNESS_API_KEY or $OPENAI_API_KEY",
  policies: "give the path of a policy file",
  plugins: "give the path of a plugin folder",
  "model-file": "give the path of a GGUF model file",
};

/** A usage error for the first flag given an empty value (`-p ""`, `--model=`). */
function emptyValue(v: FlagValues): Result<undefined> {
  for (const [name, hint] of Object.entries(EMPTY_VALUE_HINTS)) {
    const value = v[name as keyof FlagValues];
    if (value === "" || (Array.isArray(value) && value.includes(""))) {
      return usage(`Empty value for --${name}: ${hint}`);
    }
  }
  return ok(undefined);
}

/** What parseFlags returns for FLAGS: strings, booleans, and a list for --plugins. */
type FlagValues = {
  [K in keyof typeof FLAGS]?: typeof FLAGS[K] extends { multiple: true } ? string[]
    : typeof FLAGS[K] extends { type: "boolean" } ? boolean
    : string;
};

/** `--resume` takes an optional value: give it "" when no id follows. */
function normaliseOptionalResume(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    out.push(arg);
    if ((OPTIONAL_VALUE_FLAGS as readonly string[]).includes(arg)) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("-")) out.push("");
    }
  }
  return out;
}

/**
 * Parses harness's own flags (permission flags already removed).
 *
 * @param argv Arguments after the program name.
 * @returns The command, or a usage error with a one-line message.
 *
 * @example
 * ```ts
 * import { parseCommand } from "./args.ts";
 * const r = parseCommand(["-p", "hi", "--max-iterations", "3"]);
 * if (!r.ok || r.value.kind !== "run" || r.value.flags.maxIterations !== 3) throw new Error();
 * ```
 */
export function parseCommand(argv: string[]): Result<Command> {
  // `harness mcp add NAME --url URL` and `-- COMMAND` take flags of their own.
  if (argv[0] === "mcp") {
    return ok({
      kind: "mcp",
      flags: { yes: false, plugins: [], continue: false, noSession: false, outputFormat: "text" },
      args: argv.slice(1),
    });
  }
  const parsed = parseFlags(normaliseOptionalResume(argv), FLAGS);
  if (!parsed.ok) return parsed;
  const v = parsed.value.values as FlagValues;
  if (v.help) return ok({ kind: "help" });
  if (v.version) return ok({ kind: "version" });

  const numbers = {
    maxIterations: positiveInt("--max-iterations", v["max-iterations"]),
    maxToolCalls: positiveInt("--max-tool-calls", v["max-tool-calls"]),
    numCtx: positiveInt("--num-ctx", v["num-ctx"]),
    ctxSize: positiveInt("--ctx-size", v["ctx-size"]),
    contextLength: positiveInt("--context-length", v["context-length"]),
    firstByteTimeout: positiveInt("--first-byte-timeout", v["first-byte-timeout"]),
    stallTimeout: positiveInt("--stall-timeout", v["stall-timeout"]),
  };
  for (const r of Object.values(numbers)) if (!r.ok) return r;
  const empty = emptyValue(v);
  if (!empty.ok) return empty;
  const outputFormat = oneOf("--output-format", v["output-format"], OUTPUT_FORMATS);
  if (!outputFormat.ok) return outputFormat;
  const provider = oneOf("--provider", v.provider, ["openai", "ollama", "anthropic"]);
  if (!provider.ok) return provider;
  const toolCallIds = oneOf("--tool-call-ids", v["tool-call-ids"], ["native", "short"]);
  if (!toolCallIds.ok) return toolCallIds;
  const gpu = oneOf("--gpu", v.gpu, ["auto", "off"]);
  if (!gpu.ok) return gpu;
  const commandSandbox = oneOf("--command-sandbox", v["command-sandbox"], SANDBOX_MODES);
  if (!commandSandbox.ok) return commandSandbox;
  const urlProblem = v["base-url"] === undefined ? undefined : httpUrlProblem(v["base-url"]);
  if (urlProblem !== undefined) {
    return usage(`Invalid value for --base-url "${v["base-url"]}": ${urlProblem}`);
  }
  const searchUrl = v["web-search-url"];
  const searchProblem = searchUrl === undefined
    ? undefined
    : httpUrlProblem(searchUrl.replaceAll("{query}", "q"));
  if (searchProblem !== undefined) {
    return usage(
      `Invalid value for --web-search-url "${searchUrl}": ${searchProblem}: give a SearXNG URL ` +
        "or a URL template with {query}",
    );
  }
  if (outputFormat.value && v.print === undefined) {
    return usage(
      `--output-format needs -p: run "harness -p PROMPT --output-format ${outputFormat.value}"`,
    );
  }
  if (v.resume !== undefined && v.continue) {
    return usage("Use either --resume or --continue, not both");
  }

  const flags: RunFlags = {
    yes: v.yes === true,
    plugins: v.plugins ?? [],
    continue: v.continue === true,
    noSession: v["no-session"] === true,
    outputFormat: outputFormat.value ?? "text",
  };
  const set = <K extends keyof RunFlags>(key: K, value: RunFlags[K] | undefined) => {
    if (value !== undefined) flags[key] = value;
  };
  set("prompt", v.print);
  set("plan", v.plan);
  set("baseUrl", v["base-url"]?.replace(/\/+$/, ""));
  set("model", v.model);
  set("apiKey", v["api-key"]);
  set("provider", provider.value);
  set("maxIterations", numbers.maxIterations.ok ? numbers.maxIterations.value : undefined);
  set("maxToolCalls", numbers.maxToolCalls.ok ? numbers.maxToolCalls.value : undefined);
  set("numCtx", numbers.numCtx.ok ? numbers.numCtx.value : undefined);
  set("ctxSize", numbers.ctxSize.ok ? numbers.ctxSize.value : undefined);
  set("contextLength", numbers.contextLength.ok ? numbers.contextLength.value : undefined);
  set("firstByteTimeout", numbers.firstByteTimeout.ok ? numbers.firstByteTimeout.value : undefined);
  set("stallTimeout", numbers.stallTimeout.ok ? numbers.stallTimeout.value : undefined);
  set("toolCallIds", toolCallIds.value);
  set("gpu", gpu.value);
  set("commandSandbox", commandSandbox.value);
  set("modelFile", v["model-file"]);
  set("policies", v.policies);
  set("webSearchUrl", searchUrl);
  const textToolCalls = oneOf("--text-tool-calls", v["text-tool-calls"], ["auto", "off"]);
  if (!textToolCalls.ok) return textToolCalls;
  if (textToolCalls.value !== undefined) flags.textToolCalls = textToolCalls.value === "auto";
  if (v["no-text-tool-calls"]) flags.textToolCalls = false;
  if (v["no-curator"]) flags.curator = "off";
  if (v["writable-git"]) flags.writableGit = true;
  if (v.resume !== undefined) flags.resume = v.resume === "" ? true : v.resume;
  const limit = positiveInt("--limit", v.limit);
  if (!limit.ok) return limit;

  const command = exportOptions(parseSubcommand(parsed.value.positionals, flags), v);
  if (command.ok && command.value.kind === "stats" && limit.value === undefined && !v.all) {
    return ok({
      ...command.value,
      json: v.json === true,
      ...(v.since === undefined ? {} : { since: v.since }),
    });
  }
  if (command.ok && command.value.kind !== "stats" && v.since !== undefined) {
    return usage('--since applies only to "harness stats": leave it out here');
  }
  if (v.json && command.ok && command.value.kind !== "stats") {
    if (command.value.kind !== "doctor") {
      return usage(
        '--json applies only to "harness doctor" and "harness stats": for -p use --output-format json',
      );
    }
    return ok({ ...command.value, json: true });
  }
  if (!command.ok || (limit.value === undefined && !v.all)) return command;
  // --limit and --all only mean something to the session lists.
  const action = command.value.kind === "sessions" ? command.value.action : undefined;
  if (v.all && action !== "list") {
    return usage('--all applies only to "harness sessions list": leave it out here');
  }
  if (limit.value !== undefined && action !== "list" && action !== "search") {
    return usage(
      '--limit applies only to "harness sessions list" and "harness sessions search": leave it out here',
    );
  }
  return ok({
    ...command.value,
    ...(limit.value === undefined ? {} : { limit: limit.value }),
    ...(v.all ? { all: true } : {}),
  });
}

/** `--format` and `--output` belong to `harness sessions export`. */
function exportOptions(command: Result<Command>, v: FlagValues): Result<Command> {
  if (!command.ok || (v.format === undefined && v.output === undefined)) return command;
  const value = command.value;
  if (value.kind !== "sessions" || value.action !== "export") {
    return usage('--format and --output apply only to "harness sessions export": leave them out');
  }
  const format = oneOf("--format", v.format, ["md", "jsonl"]);
  if (!format.ok) return format;
  return ok({
    ...value,
    ...(format.value ? { format: format.value } : {}),
    ...(v.output === undefined ? {} : { output: v.output }),
  });
}

function parseSubcommand(positionals: string[], flags: RunFlags): Result<Command> {
  const [first, ...rest] = positionals;
  if (first === undefined) return ok({ kind: "run", flags });
  if (flags.prompt !== undefined) {
    return usage(`Unexpected argument "${first}": quote the whole prompt, e.g. -p "fix the tests"`);
  }
  switch (first) {
    case "tool": {
      const [name, json = "{}", extra] = rest;
      if (name === undefined || extra !== undefined) {
        return usage(`Usage: harness tool NAME 'JSON', e.g. harness tool ls '{"path": "."}'`);
      }
      return ok({ kind: "tool", flags, name, json });
    }
    case "sessions": {
      const [action = "list", arg, extra] = rest;
      if (extra !== undefined) {
        return usage(`Unexpected argument "${extra}" for "harness sessions"`);
      }
      if (action === "list") {
        if (arg !== undefined) {
          return usage(`Unexpected argument "${arg}" for "harness sessions list"`);
        }
        return ok({ kind: "sessions", flags, action });
      }
      if (
        action === "export" || action === "search" || action === "delete" || action === "import"
      ) {
        if (arg) return ok({ kind: "sessions", flags, action, arg });
        return usage(
          action === "search"
            ? `Missing search text for "harness sessions search": run "harness sessions search TEXT"`
            : action === "import"
            ? `Missing transcript for "harness sessions import": run "harness sessions import FILE|DIR"`
            : `Missing session id for "harness sessions ${action}": run "harness sessions" to list them`,
        );
      }
      return usage(
        `Unknown sessions command "${action}": use list, export ID, search TEXT, delete ID or ` +
          "import FILE|DIR",
      );
    }
    case "policy": {
      const [action, tool, json = "{}", extra] = rest;
      if (action !== "explain" || tool === undefined || extra !== undefined) {
        return usage(
          `Usage: harness policy explain TOOL 'JSON', e.g. harness policy explain run_command '{"command": "git status"}'`,
        );
      }
      return ok({ kind: "policy_explain", flags, tool, json });
    }
    case "acp": {
      if (rest[0] !== undefined) {
        return usage(`Unexpected argument "${rest[0]}" for "harness acp": it takes flags only`);
      }
      return ok({ kind: "acp", flags });
    }
    case "plugin": {
      const [action, name, extra] = rest;
      if (action === "trust") return ok({ kind: "plugin_trust", flags, paths: rest.slice(1) });
      if (action !== "new" || name === undefined || extra !== undefined) {
        return usage(
          "Usage: harness plugin new NAME (e.g. harness plugin new word_count), or " +
            "harness plugin trust [FILE...] (default: every plugin in ./plugins)",
        );
      }
      return ok({ kind: "plugin_new", flags, name });
    }
    case "doctor": {
      if (rest[0] !== undefined) {
        return usage(`Unexpected argument "${rest[0]}" for "harness doctor": it takes flags only`);
      }
      return ok({ kind: "doctor", flags });
    }
    case "index": {
      if (rest.length > 0) {
        return usage(
          `Unexpected argument "${rest[0]}" for "harness index": it indexes the current folder`,
        );
      }
      return ok({ kind: "index", flags });
    }
    case "agents":
    case "skills": {
      const [action, extra] = rest;
      if ((action !== undefined && action !== "trust") || extra !== undefined) {
        return usage(
          `Unexpected argument "${action === "trust" ? extra : action}" for "harness ${first}": ` +
            `use "harness ${first}" to list them or "harness ${first} trust" to trust the project's`,
        );
      }
      return ok({ kind: first, flags, trust: action === "trust" });
    }
    case "stats": {
      if (rest.length > 0) {
        return usage(
          `Unexpected argument "${rest[0]}" for "harness stats": it takes --since WHEN and --json`,
        );
      }
      return ok({ kind: "stats", flags, json: false });
    }
    default:
      return usage(
        `Unknown command "${first}": to send a prompt use -p "${
          [first, ...rest].join(" ")
        }"; run "harness --help" for usage`,
      );
  }
}
