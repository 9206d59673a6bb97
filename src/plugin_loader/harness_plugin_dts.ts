// The text of `plugins/harness_plugin.d.ts`, which `harness plugin new` writes next to a new
// plugin. It is a string (not a file in the tree) so a compiled binary carries it. The
// declarations are self-contained: a plugin folder type-checks with `deno check` and no
// deno.json, and the declared `z` is a subset of the real zod 4 the sandbox worker passes in.
// The plugin contract is a copy of src/tools/define_tool.ts's, which
// tests/plugin_loader/harness_plugin_dts_test.ts holds to it type by type.

/**
 * Contents of `harness_plugin.d.ts`: types for factory-form plugins (`PluginApi`, `Infer`,
 * `ToolDefinition`, the used part of zod). Import them with `import type`, which Deno erases,
 * so the plugin still loads when the file is missing.
 *
 * @example
 * ```ts
 * import { HARNESS_PLUGIN_DTS } from "./harness_plugin_dts.ts";
 * if (!HARNESS_PLUGIN_DTS.includes("export interface PluginApi")) throw new Error();
 * ```
 */
export const HARNESS_PLUGIN_DTS =
  `// harness_plugin.d.ts: types for harness plugin files, written by \`harness plugin new\`.
// Self-contained (no imports), so \`deno check plugins/NAME.ts\` works without a deno.json.
// At run time the harness calls a plugin's default export with { z, ToolError, defineTool };
// \`z\` is the real zod 4, of which this file declares the commonly used part.

/** A zod schema whose parsed value has type \`Output\`. */
export interface ZodType<Output = unknown> {
  /** Type-level only: the parsed type (read it with \`Infer<typeof schema>\`). */
  readonly _output: Output;
  /** Text the model sees for this field. Describe every field. */
  describe(description: string): this;
  optional(): ZodType<Output | undefined>;
  nullable(): ZodType<Output | null>;
  /** Value used when the model leaves the field out. */
  default(value: Exclude<Output, undefined>): ZodType<Exclude<Output, undefined>>;
  parse(data: unknown): Output;
  safeParse(data: unknown): { success: true; data: Output } | { success: false; error: Error };
}

/** The parsed type of a schema: \`Infer<typeof parameters>\`. */
export type Infer<T extends ZodType> = T["_output"];

export interface ZodString extends ZodType<string> {
  min(length: number, message?: string): this;
  max(length: number, message?: string): this;
  regex(pattern: RegExp, message?: string): this;
  trim(): this;
}

export interface ZodNumber extends ZodType<number> {
  int(message?: string): this;
  min(value: number, message?: string): this;
  max(value: number, message?: string): this;
  positive(message?: string): this;
  nonnegative(message?: string): this;
}

export interface ZodArray<Item extends ZodType> extends ZodType<Infer<Item>[]> {
  min(length: number, message?: string): this;
  max(length: number, message?: string): this;
}

/** Field name -> schema, the argument of \`z.object\`. */
export type ZodRawShape = { [key: string]: ZodType };

type Flatten<T> = { [K in keyof T]: T[K] };

/** An object's parsed type: fields whose schema accepts undefined become optional. */
export type ShapeOutput<Shape extends ZodRawShape> = Flatten<
  & { [K in keyof Shape as undefined extends Infer<Shape[K]> ? never : K]: Infer<Shape[K]> }
  & { [K in keyof Shape as undefined extends Infer<Shape[K]> ? K : never]?: Infer<Shape[K]> }
>;

export interface ZodObject<Shape extends ZodRawShape> extends ZodType<ShapeOutput<Shape>> {
  readonly shape: Shape;
}

/** The part of zod 4's \`z\` that plugins commonly use; the runtime object has all of zod. */
export interface Zod {
  string(): ZodString;
  number(): ZodNumber;
  boolean(): ZodType<boolean>;
  object<Shape extends ZodRawShape>(shape: Shape): ZodObject<Shape>;
  array<Item extends ZodType>(item: Item): ZodArray<Item>;
  enum<const Values extends readonly [string, ...string[]]>(
    values: Values,
  ): ZodType<Values[number]>;
  literal<const Value extends string | number | boolean>(value: Value): ZodType<Value>;
  union<const Options extends readonly [ZodType, ...ZodType[]]>(
    options: Options,
  ): ZodType<Infer<Options[number]>>;
}

export type RiskLevel = "safe" | "low" | "medium" | "high";

/** Deno permissions the tool needs; the sandbox grants at most these (a key left out is denied). */
export interface ToolPermissions {
  read?: boolean | string[];
  write?: boolean | string[];
  net?: boolean | string[];
  run?: boolean | string[];
  env?: boolean | string[];
  sys?: boolean | string[];
  ffi?: boolean | string[];
}

/** What \`run\` receives besides its arguments. */
export interface ToolContext {
  /** Absolute workspace root (the harness's working directory). */
  workspace: string;
  /**
   * Workspace-relative path -> absolute real path (symbolic links resolved, so the sandbox
   * checks what is opened); throws a "validation_failed" ToolError on escapes.
   */
  resolve(path: string): string;
  /**
   * Reads, writes, stats and lists files by the real paths \`resolve\` returns (the worker's
   * own file access, bounded by the tool's permissions).
   */
  files: FilePort;
  /** Aborted when the user interrupts or the call times out. */
  signal: AbortSignal;
  /** Folder for this session's data; the tool may create it. */
  dataDir: string;
  /** Per-conversation state shared by tools across calls. */
  state: Record<string, unknown>;
  /** Characters of output the model gets before the harness cuts the middle out. */
  outputLimit?: number;
  /**
   * Starts a process (the tool declares \`run\`) in the command sandbox of the user's flags,
   * with a clean environment, as the leader of its own process group (\`child.kill()\` stops
   * all of it). Tools have no Deno \`run\` permission: \`Deno.Command\` is refused.
   */
  spawn(program: string, options?: SpawnOptions): Deno.ChildProcess;
  /** How \`spawn\` confines processes. */
  commands: {
    /** Whether processes run in an OS sandbox (bubblewrap, sandbox-exec). */
    readonly confined: boolean;
    /** One line: how commands run here. */
    readonly summary: string;
    /** One line naming the flag that would allow what the sandbox blocked, if it blocked something. */
    explain(output: string, cwd?: string): string | undefined;
  };
  /**
   * Shows output while the tool runs (the terminal keeps the last line on the tool's running
   * line); calls are cheap and rate-limited.
   */
  progress?(text: string): void;
}

/** \`ctx.files\`: paths are the real ones \`resolve\` returns; \`path\` is for messages. */
export interface FilePort {
  /** A regular file's bytes (at most 10 MB); with \`head\`, only its first bytes. */
  read(abs: string, path: string, options?: { head?: number }): Promise<Uint8Array>;
  /** Writes text as the file's whole content (atomically), making its folders. */
  write(abs: string, content: string, path: string): Promise<FileWrite>;
  /** The file's kind and size, or undefined when nothing is there. */
  stat(abs: string): Promise<FileStat | undefined>;
  list(abs: string, path: string): Promise<ListedEntry[]>;
  /** Host side only (a tool need not call it): throws where a write would be refused. */
  mayWrite?(abs: string): void;
}

export interface FileStat {
  kind: "file" | "directory" | "other";
  size: number;
}

export interface FileWrite {
  bytes: number;
  existed: boolean;
  links: number;
}

export interface ListedEntry {
  name: string;
  kind: "file" | "directory" | "symlink" | "other";
}

/** Options of \`ctx.spawn\`; \`cwd\` defaults to the workspace, \`env\` adds to the clean one. */
export interface SpawnOptions {
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: "piped" | "null";
  stdout?: "piped" | "null";
  stderr?: "piped" | "null";
  /** Windows: pass \`args\` to the program as written (cmd.exe quoting). */
  windowsRawArguments?: boolean;
}

/** \`output\` goes to the model; \`display\` (optional) to the terminal. */
export interface ToolOutput {
  output: string;
  display?: string;
  /** Ends the run (task complete). */
  final?: boolean;
  /**
   * Images to show the model with the output (PNG, JPEG, GIF or WebP bytes; harness checks
   * each and leaves out what the model cannot see).
   */
  images?: { data: Uint8Array; name?: string }[];
  /**
   * Set when the tool cut its own output: how many bytes it had. The result's note and
   * metadata then give the real size.
   */
  outputBytes?: number;
  /**
   * Set when the tool cut its own output: the bytes it left out, and the file that holds the
   * whole output when harness saved it among the workspace's saved outputs (a plugin cannot
   * write there: harness names only a file of its own saved outputs).
   */
  cutOutput?: { bytes: number; path?: string };
}

export interface ToolDefinition<Parameters extends ZodType = ZodType> {
  /** Equal to the file name without extension: /^[a-z][a-z0-9_]*$/. */
  name: string;
  /** One or two factual sentences; local models have small contexts. */
  description: string;
  risk: RiskLevel;
  parameters: Parameters;
  permissions?: ToolPermissions;
  /** Per-tool timeout in milliseconds (default 120000). */
  timeoutMs?: number;
  run(args: Infer<Parameters>, ctx: ToolContext): Promise<ToolOutput> | ToolOutput;
  /**
   * For a tool that writes one file: the file a call would write and its whole new text,
   * worked out as run() would but without writing. The approval prompt shows its diff.
   */
  preview?(
    args: Infer<Parameters>,
    ctx: ToolContext,
  ): Promise<{ path: string; content: string }> | { path: string; content: string };
}

/**
 * Categories of a failure the model sees. Tools throw the first seven; the last three are
 * set by the harness itself.
 */
export type ToolErrorType =
  | "not_found"
  | "validation_failed"
  | "permission_denied"
  | "io_error"
  | "parse_error"
  | "timeout"
  | "internal_error"
  | "limit_reached"
  | "cancelled"
  | "interrupted";

/** A failure a tool reports on purpose: \`throw new ToolError("not_found", "...")\`. */
export interface ToolError extends Error {
  readonly type: ToolErrorType;
}

export interface ToolErrorConstructor {
  new (type: ToolErrorType, message: string): ToolError;
}

/** What the harness passes to a plugin's default export. */
export interface PluginApi {
  z: Zod;
  ToolError: ToolErrorConstructor;
  /** Returns its argument; infers \`run\`'s argument type from \`parameters\`. */
  defineTool<Parameters extends ZodType>(
    definition: ToolDefinition<Parameters>,
  ): ToolDefinition<Parameters>;
}

/** The default export of a plugin file. */
export type PluginFactory = (api: PluginApi) => ToolDefinition;
`;
