// Test helper: a real ToolHost over a temp workspace (plus a folder outside it and a plugin
// folder), with the built-in run_command and any plugins a test writes, confined by the flags
// the test gives. Attack tests run tools through it as harness would run them.

import { join } from "node:path";
import { discoverPlugins } from "../../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import {
  probeCommandSandbox,
  withScratch,
} from "../../src/sandbox/commands/command_sandbox_probe.ts";
import type { Grants } from "../../src/sandbox/grants/grants.ts";
import { createToolHost, type ToolHost } from "../../src/sandbox/workers/tool_host.ts";
import type { ToolResult } from "../../src/messages.ts";

/** The folders of one host. */
export interface SandboxDirs {
  workspace: string;
  outside: string;
  pluginDir: string;
}

/** A host and its folders; dispose it to close the host and remove the folders. */
export interface SandboxHost extends SandboxDirs, AsyncDisposable {
  host: ToolHost;
  grants: Grants;
  /** Load errors, one line each. */
  errors: string[];
  /** Runs `name` with `args` and returns its result. */
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
}

/** Options of {@linkcode sandboxHost}. */
export interface SandboxHostOptions {
  /** Files to create before the host starts (path relative to a folder -> text). */
  files?: (dirs: SandboxDirs) => Record<string, string>;
  /** Plugin files (name -> source) written into the plugin folder. */
  plugins?: Record<string, string>;
  /** Built-in tools to load (default: run_command only). */
  builtins?: string[];
  /** Extra setup once the files exist (symbolic links...). */
  setup?: (dirs: SandboxDirs) => Promise<void>;
  /**
   * Where the folder outside the workspace is made (default: the temp folder, which commands
   * see as their own empty /tmp, so `-R` tests put it elsewhere, such as /var/tmp).
   */
  outsideParent?: string;
  /** `--writable-git`: commands may write `.git`. */
  writableGit?: boolean;
  /** Plugin folders harness would load (kept read-only for commands); default the plugin dir. */
  pluginFolders?: (dirs: SandboxDirs) => string[];
  /**
   * Narrows the grants the flags gave before the host starts (plan mode, a child's scope);
   * `scratch` folders become plan mode's throwaway folders in the command sandbox.
   */
  narrow?: (grants: Grants, dirs: SandboxDirs) => { grants: Grants; scratch?: readonly string[] };
}

/**
 * Starts a host whose tools run as harness would run them with `flags`.
 *
 * @param flags The permission flags, given the folders.
 * @param options Files, plugins and built-ins.
 * @returns The host; dispose it with `await using`.
 */
export async function sandboxHost(
  flags: (dirs: SandboxDirs) => string[],
  options: SandboxHostOptions = {},
): Promise<SandboxHost> {
  const real = async (prefix: string, dir?: string) =>
    await Deno.realPath(await Deno.makeTempDir({ prefix, ...(dir ? { dir } : {}) }));
  const dirs: SandboxDirs = {
    workspace: await real("harness_ws_"),
    outside: await real("harness_out_", options.outsideParent),
    pluginDir: await real("harness_plug_"),
  };
  for (const [path, text] of Object.entries(options.files?.(dirs) ?? {})) {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  for (const [name, text] of Object.entries(options.plugins ?? {})) {
    await Deno.writeTextFile(join(dirs.pluginDir, name), text);
  }
  await options.setup?.(dirs);
  const parsed = parseGrantFlags(flags(dirs), { cwd: dirs.workspace });
  if (!parsed.ok) throw new Error(`bad flags: ${JSON.stringify(parsed.error)}`);
  const narrowed = options.narrow?.(parsed.value.grants, dirs);
  const grants = narrowed?.grants ?? parsed.value.grants;
  const probed = probeCommandSandbox("required", {
    grants,
    env: Deno.env.toObject(),
    workspace: dirs.workspace,
    pluginFolders: options.pluginFolders?.(dirs) ?? [dirs.pluginDir],
    writableGit: options.writableGit ?? false,
  });
  const scratch = narrowed?.scratch;
  const builtins = new Set(options.builtins ?? ["run_command"]);
  const { files } = await discoverPlugins({
    userDir: null,
    cwd: dirs.workspace,
    pluginDirs: options.plugins ? [dirs.pluginDir] : [],
  });
  const { host, errors } = await createToolHost({
    grants,
    workspace: dirs.workspace,
    dataDir: join(dirs.outside, ".data"),
    pluginFiles: files.filter((file) => file.origin !== "builtin" || builtins.has(file.name)),
    abortGraceMs: 200,
    commandSandbox: scratch ? probed.then((sandbox) => withScratch(sandbox, scratch)) : probed,
  });
  return {
    ...dirs,
    host,
    grants,
    errors: errors.map((e) => (e.kind === "plugin_invalid" ? `${e.file}: ${e.reason}` : e.kind)),
    async call(name, args) {
      const validated = await host.validate(name, args);
      if (!validated.ok) throw new Error(validated.error.join("\n"));
      return (await host.run(name, validated.value, { state: {} })).result;
    },
    async [Symbol.asyncDispose]() {
      await host.close();
      for (const dir of [dirs.workspace, dirs.outside, dirs.pluginDir]) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  };
}
