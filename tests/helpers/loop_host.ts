// Test support for the loop tests (tests/agent/agent_loop_test.ts, call_driver_test.ts,
// conversation_test.ts, loop_guard_test.ts): a real ToolHost over the `basic` and `loop`
// fixture plugins (or the built-in tools) in a temp workspace, a recording Approver, an event
// collector and a conversation's parts.

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LoopEvent, LoopEventSink } from "../../src/agent/loop_events.ts";
import type { ConversationParts } from "../../src/agent/conversation_parts.ts";
import type { Provider } from "../../src/providers/provider.ts";
import type {
  ApprovalDecision,
  ApprovalRequest,
  Approver,
} from "../../src/permissions/approver.ts";
import { discoverPlugins } from "../../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { createToolHost, type ToolHost } from "../../src/sandbox/workers/tool_host.ts";
import type { ToolSource } from "../../src/tools/tool_entry.ts";
import { ToolSet } from "../../src/tools/tool_set.ts";
import type { ToolScope } from "../../src/sandbox/grants/tool_offer.ts";

const fixtures = fileURLToPath(new URL("../fixtures/plugins/", import.meta.url));

/** A tool host and its temp workspace, closed and removed on dispose. */
export interface LoopHost extends AsyncDisposable {
  host: ToolHost;
  workspace: string;
}

/**
 * Opens a ToolHost over the fixture plugins (no grants) and waits for its tool list.
 *
 * @param options Per-tool timeout overrides in milliseconds; `builtins` for the built-in
 *   tools instead of the fixtures; `grants`, permission flags for the workspace
 *   (e.g. `--allow-read=.`); `files` to write into the workspace first.
 * @returns The host; dispose it (`await using`) so no worker outlives the test.
 */
export async function openLoopHost(
  options: {
    timeouts?: Record<string, number>;
    builtins?: boolean;
    grants?: string[];
    files?: Record<string, string>;
  } = {},
): Promise<LoopHost> {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_loop_" }));
  for (const [name, text] of Object.entries(options.files ?? {})) {
    await Deno.mkdir(dirname(join(workspace, name)), { recursive: true });
    await Deno.writeTextFile(join(workspace, name), text);
  }
  const { files } = await discoverPlugins({
    ...(options.builtins ? {} : { builtinDir: null }),
    userDir: null,
    cwd: workspace,
    pluginDirs: options.builtins ? [] : [join(fixtures, "basic"), join(fixtures, "loop")],
  });
  const grants = parseGrantFlags(options.grants ?? [], { cwd: workspace });
  if (!grants.ok) throw new Error(JSON.stringify(grants.error));
  const { host, errors } = await createToolHost({
    grants: grants.value.grants,
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: files,
    abortGraceMs: 100,
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
  });
  if (errors.length > 0) {
    await host.close();
    throw new Error(`fixture plugins did not load: ${JSON.stringify(errors)}`);
  }
  return {
    host,
    workspace,
    async [Symbol.asyncDispose]() {
      await host.close();
      await Deno.remove(workspace, { recursive: true });
    },
  };
}

/** An Approver that records each request (and whether it got a signal) and answers with `decide`. */
export class RecordingApprover implements Approver {
  readonly requests: ApprovalRequest[] = [];
  readonly signals: (AbortSignal | undefined)[] = [];

  constructor(
    readonly decide: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision> =
      () => ({ decision: "allow", by: "mode" }),
  ) {}

  approve(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalDecision> {
    this.requests.push(request);
    this.signals.push(signal);
    return Promise.resolve(this.decide(request));
  }
}

/** Collects loop events; `types()` lists their types in order. */
export class EventLog {
  readonly events: LoopEvent[] = [];
  readonly sink: LoopEventSink = (event) => void this.events.push(event);

  types(): string[] {
    return this.events.map((event) => event.type);
  }

  /** Events of one type, narrowed. */
  of<T extends LoopEvent["type"]>(type: T): Extract<LoopEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<LoopEvent, { type: T }> => e.type === type);
  }
}

/** The tools of one source (a host) as a conversation or the loop takes them. */
export function toolScope(source: ToolSource): ToolScope {
  return { set: new ToolSet([source]) };
}

/**
 * A conversation's parts over a host and a provider: an approver that allows everything, no
 * session log, the default limits, no stages, and `extra` on top.
 */
export function conversationParts(
  host: ToolSource,
  provider: Provider,
  extra: Partial<ConversationParts> = {},
): ConversationParts {
  return {
    provider,
    tools: toolScope(host),
    approver: new RecordingApprover(),
    recorder: { id: null, record: () => {}, end: () => {} },
    limits: { maxIterations: 10, maxToolCalls: 15 },
    window: {},
    stages: { call: [], turn: [] },
    ...extra,
  };
}
