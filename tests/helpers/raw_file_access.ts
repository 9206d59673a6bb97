// Which source files touch files directly (Deno's read, write, list, remove, rename, open and
// friends, or node:fs) instead of through the file gate (src/gate/, DESIGN.md decision 19).
// Every such file is in RAW_FILE_ACCESS with the reason it may: the gate itself, code that runs
// only in a tool worker behind the gate's view, or code that handles only harness's own paths
// (its config, data and cache folders) or paths its caller already passed through the gate.
// Metadata calls (stat, lstat, realPath) are not counted: they open nothing.

/** The calls counted as raw file access. */
const RAW_CALL =
  /\bDeno\.(readFile|readTextFile|readDir|writeFile|writeTextFile|remove|rename|open|create|copyFile|link|symlink|truncate|mkdir|makeTempFile|makeTempDir|chmod|chown|utime)(Sync)?\b/;
/** Imports of node's file system. */
const NODE_FS = /from\s+["']node:fs(\/promises)?["']|import\(\s*["']node:fs/;

/**
 * Files and folders (a path ending in `/`) that may touch files directly, each with why. Keep
 * it short: a new feature reads and writes through src/gate/gated_files.ts instead.
 */
export const RAW_FILE_ACCESS: Readonly<Record<string, string>> = {
  "src/gate/": "the gate: it decides, and gated_files.ts does the I/O it allowed",
  "src/tools/": "runs only inside a tool worker, whose deny guard asks the gate's view first",
  "src/code_index/index_worker.ts": "the index worker reads the workspace behind a deny guard",
  "src/sessions/": "the session database and its lock, in harness's data folder",
  "src/config/folders.ts": "makes harness's own folders owner-only",
  "src/config/settings.ts": "harness's config and the workspace's own .harness/config.jsonc " +
    "(a link out of the workspace is refused first: config/workspace_link.ts)",
  "src/config/trust_store.ts": "harness's trust store, in its config folder",
  "src/config/trusted_scripts.ts": "hashes the scripts a project config names, for trust only",
  "src/config/project_instructions.ts": "reads only the instruction files its caller's gate " +
    "allowed (the refused option)",
  "src/turn_input/custom_commands.ts": "reads the user's command folder and the project files " +
    "workspace_commands.ts passed through the gate",
  "src/permissions/policy_file.ts": "the user's and the project's policy files, and writing " +
    "the rule the user chose with Always",
  "src/permissions/project_trust.ts": "hashes project plugin files for trust (only a hash leaves)",
  "src/platform/bundle_manifest.ts": "reads harness's own .bundle/current.json at start, before " +
    "any workspace or grant exists",
  "src/platform/real_path.ts": "node:fs's realpathSync on Windows, for workspace_path.ts and " +
    "verified_fs.ts, which check every path against the gate's rules",
  "src/platform/import_graph.ts": "reads plugin files to find and hash their local imports",
  "src/platform/image_file.ts": "opens an image its caller named: prompt_images.ts after the " +
    "gate, tools in their worker",
  "src/plugin_loader/":
    "lists and scaffolds plugin folders, caches schemas in harness's cache folder",
  "src/skills/": "finds SKILL.md folders (a project's only once trusted) and reads a skill's " +
    "files for the model after the gate's check (app/run_skills.ts gives it the refusal)",
  "src/agents/": "lists agent files (a project's only once trusted) for harness agents",
  "src/code_index/graph_store.ts": "the code index database, in harness's data folder",
  "src/code_index/grammar_assets.ts": "reads harness's bundled tree-sitter grammars",
  "src/checkpoints/": "the shadow repository in harness's data folder; snapshot and restore " +
    "paths are filtered by checkpoints/ itself (issue 38, section 3)",
  "src/mcp/mcp_tools.ts": "saves an MCP result's images and outputs in harness's data folder",
  "src/mcp/oversize_message.ts": "streams an MCP answer too large to hold into harness's " +
    "saved outputs",
  "src/mcp/profile_approval.ts": "saves an approved sandbox profile into harness's own " +
    "config.jsonc",
  "src/mcp/launcher_profiles.ts": "reads the registry line of the user's .npmrc for npx's " +
    "profile (host side; shown in the approval question, never sent)",
  "src/mcp/server_paths.ts": "reads the #! line (256 bytes) of the program an MCP entry names, " +
    "to make its interpreter readable in its sandbox (host side, nothing leaves)",
  "src/sandbox/workers/truncate_output.ts": "saves cut outputs in this workspace's data folder",
  "src/jobs/job_log.ts": "writes a command's output log in this workspace's data folder",
  "src/jobs/job_terminal_view.ts": "writes the sanitised copy of a background job's log beside " +
    "it, for an editor's terminal",
  "src/platform/process_tree.ts": "reads /proc of the processes a job started",
  "src/platform/startup_trace.ts": "reads this thread's /proc/thread-self/schedstat, a fixed " +
    "path, for the start-up trace (HARNESS_TRACE_STARTUP=1)",
  "src/app/run_diagnostics.ts": "makes a language server's folder in harness's cache, and " +
    "reads the user's own LSP configs (~/.claude, ~/.config/opencode); the workspace's go " +
    "through the gate",
  "src/sandbox/commands/command_sandbox_seccomp.ts": "writes the seccomp filter to harness's cache",
  "src/sandbox/commands/stdio_only.ts": "lists /proc/self/fd, harness's own descriptors",
  "src/hooks/process_tree.ts": "reads /proc (pids and parents) to stop what a hook started",
  "src/sandbox/workers/allow_list_split.ts":
    "lists granted folders to build a worker's permissions " +
    "(names only, on the host)",
  "src/sandbox/grants/hard_links.ts": "walks the write grants for linked files (names only)",
  "src/providers/": "model files the user named or harness downloaded into its cache",
  "src/cli/commands/mcp_command.ts": "harness mcp import: reads the file the user named on its " +
    "command line and writes harness's own config",
  "src/cli/no_prompt.ts": "reads /proc/self/cmdline, harness's own",
  "src/ui/external_editor.ts": "the temporary file harness writes for the user's editor",
  "src/ui/repl_history.ts": "the REPL history, in harness's data folder",
};

/**
 * The lines of a source that touch files directly, comments left out.
 *
 * @param source A TypeScript file's text.
 * @returns `line: text` for each such line.
 *
 * @example
 * ```ts
 * import { rawFileAccess } from "./raw_file_access.ts";
 * const found = rawFileAccess('// Deno.readTextFile(x) in a comment\nconst t = await Deno.readTextFile(p);\n');
 * if (found.length !== 1 || !found[0]!.startsWith("2:")) throw new Error(found.join());
 * ```
 */
export function rawFileAccess(source: string): string[] {
  const found: string[] = [];
  let inBlock = false;
  for (const [index, line] of source.split("\n").entries()) {
    let code = line;
    if (inBlock) {
      const end = code.indexOf("*/");
      if (end === -1) continue;
      code = code.slice(end + 2);
      inBlock = false;
    }
    const start = code.indexOf("/*");
    if (start !== -1 && !code.slice(start).includes("*/")) {
      inBlock = true;
      code = code.slice(0, start);
    }
    code = code.replace(/\/\*.*?\*\//g, "").replace(/(^|[^:])\/\/.*$/, "$1");
    if (RAW_CALL.test(code) || NODE_FS.test(code)) found.push(`${index + 1}: ${line.trim()}`);
  }
  return found;
}

/**
 * The allow-list entry covering a project file, if any.
 *
 * @param file A path relative to the project root (forward slashes).
 * @param allowed The allow-list.
 * @returns The entry's key.
 */
export function allowedBy(
  file: string,
  allowed: Readonly<Record<string, string>> = RAW_FILE_ACCESS,
): string | undefined {
  return Object.keys(allowed).find((entry) =>
    entry.endsWith("/") ? file.startsWith(entry) : file === entry
  );
}
