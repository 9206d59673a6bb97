// The messages between the tool host (main thread) and a sandbox worker. A worker is told
// once which plugins it holds ("load"), then answers validate/run requests by id. Only
// structured-clone-able values cross this boundary, and the ports a run (search, files) or the
// "processes" message (ctx.spawn) carries, which are transferred (transferOf).

import type { ToolErrorType } from "../../messages.ts";
import type {
  LoadFailure,
  PluginRef,
  WireToolInfo,
} from "../../plugin_loader/plugin_definition.ts";
import type { FileChange } from "../../tools/file_change.ts";
import type { CommandSandbox } from "../commands/command_sandbox.ts";
import type { Grants } from "../grants/grants.ts";
import type { PermissionName } from "../grants/permission_name.ts";
import type { GateView } from "../../gate/gate_types.ts";

/** The "load" message: what a worker holds and how it is sandboxed. */
export interface LoadMessage {
  type: "load";
  plugins: PluginRef[];
  /**
   * "list": import every plugin now and report their schemas (the loader worker).
   * "serve": import the plugins when the first request arrives (a tool group's worker).
   */
  mode: "list" | "serve";
  /** Read grants added only so plugin files can be imported; revoked once they are. */
  revokeRead: string[];
  guard: Partial<Record<PermissionName, string[]>>;
  /** Paths the tool may not write even inside its write grant (`.git`, harness's folders). */
  readOnly?: string[];
  /** The host's file gate (protected set, hidden folders, identities); Deno checks the grants. */
  gate?: GateView;
  grants: Grants;
  workspace: string;
  dataDir: string;
  /** Plan mode's plan folder: file tools accept absolute paths inside it (plan_mode_grants.ts). */
  planFolder?: string;
  /**
   * Why the grants are narrower than the user's, for refusals that name no flag: plan mode's
   * folder (wherever it is), and the user's grants under a subagent's.
   */
  narrowing?: { planFolder?: string; narrowedFrom?: Grants };
  cwd: string;
  importTimeoutMs: number;
  /** ToolContext.outputLimit: characters of output the model gets before the cut. */
  outputLimit?: number;
  /** How `ctx.spawn` confines processes (the host's start-up check). */
  commands: CommandSandbox;
  /** `ctx.config` of the worker's built-in tools that have settings, by tool name. */
  toolConfig?: Record<string, Readonly<Record<string, string>>>;
  /**
   * Folders outside the workspace whose files `ctx.resolve` takes by absolute path (a loaded
   * skill's, from the gate's session reads); the worker's permissions read them, never write.
   */
  readRoots?: string[];
}

/** Messages from the host. */
export type HostToWorker =
  | LoadMessage
  | { type: "validate"; id: number; name: string; args: unknown }
  | {
    type: "run";
    id: number;
    name: string;
    args: unknown;
    state: Record<string, unknown>;
    /** The port to the host's ripgrep and fd (processes/search_service.ts): grep_search, glob. */
    search?: MessagePort;
    /** The channel to the host's file port (file_channel.ts: the editor's), for `ctx.files`. */
    files?: MessagePort;
    /** The port to the host's jobs (src/jobs/job_service.ts), for run_command and job tools. */
    jobs?: MessagePort;
  }
  /** What a call would change, for the approval prompt (the tool's `preview`). */
  | {
    type: "preview";
    id: number;
    name: string;
    args: unknown;
    state: Record<string, unknown>;
    files?: MessagePort;
  }
  | { type: "abort"; id: number; reason: string }
  /**
   * The worker's end of its channel to the host for `ctx.spawn` (processes/process_protocol.ts),
   * sent after "load" to each tool worker (a replaced one gets a new channel).
   */
  | { type: "processes"; port: MessagePort };

/** Messages to the host. */
export type WorkerToHost =
  /** Answer to "load": the schemas in "list" mode; empty lists in "serve" mode. */
  | { type: "loaded"; tools: WireToolInfo[]; failures: LoadFailure[] }
  /** A "serve" worker imported its plugins (on its first request); the host refreshes its cache. */
  | { type: "imported"; tools: WireToolInfo[]; failures: LoadFailure[] }
  /** The loader starts importing this plugin ("list" mode), so its deadline starts now. */
  | { type: "importing"; path: string }
  /** Output a running tool reported (ctx.progress), for the running tool's line. */
  | { type: "output"; id: number; text: string }
  | { type: "validated"; id: number; ok: true; value: unknown }
  | { type: "validated"; id: number; ok: false; issues: string[] }
  | {
    type: "done";
    id: number;
    output: string;
    display?: string;
    final?: boolean;
    /** The tool's images, unchecked (the host checks their format and hashes them). */
    images?: { data: Uint8Array; name?: string }[];
    /** ToolOutput.outputBytes. */
    outputBytes?: number;
    /** ToolOutput.cutOutput, checked for its types only (the host checks the path). */
    cutOutput?: { bytes: number; path?: string };
    state: Record<string, unknown>;
  }
  | {
    type: "failed";
    id: number;
    errorType: Exclude<ToolErrorType, "none">;
    message: string;
    state?: Record<string, unknown>;
  }
  /** Answer to "preview": the change, why there is none, or neither (the tool has no preview). */
  | { type: "previewed"; id: number; change?: FileChange; error?: string }
  | { type: "crashed"; reason: string }
  /** What the tool printed (console, Deno.stdout, Deno.stderr): shown through console_relay.ts. */
  | { type: "console"; text: string };

/**
 * The ports a message carries, which the host must transfer, not copy.
 *
 * @param message A message to the tool worker.
 * @returns The search, file and jobs ports of a run or preview, the processes' port, else nothing.
 */
export function transferOf(message: HostToWorker): Transferable[] {
  if (message.type === "run") {
    return [message.search, message.files, message.jobs].filter((port) => port !== undefined);
  }
  if (message.type === "preview") {
    return message.files ? [message.files] : [];
  }
  return message.type === "processes" ? [message.port] : [];
}
