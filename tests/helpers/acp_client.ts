// A real ACP client (the official SDK's client app) driving `harness acp` as a subprocess in a
// CLI sandbox: it records every session/update, answers permission requests from a script and
// serves fs/read_text_file and fs/write_text_file from an in-memory editor when asked to (a
// file without a buffer is read from disk, as an editor reads a file it has not opened).

import {
  client,
  type ClientContext,
  type InitializeResponse,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import type { CliSandbox } from "./run_cli.ts";

/** Options of {@linkcode startAcpClient}. */
export interface AcpClientOptions {
  /**
   * Answers to permission requests, in order: an option id, "cancelled", or "wait" (no answer
   * until the agent cancels the request, then "cancelled").
   */
  permissions?: string[];
  /** Open buffers by absolute path: offering them turns on fs/* capabilities. */
  editorFiles?: Map<string, string>;
  /** Extra environment for the subprocess. */
  env?: Record<string, string>;
}

/** A connected client; close it with `await using`. */
export interface AcpTestClient extends AsyncDisposable {
  agent: ClientContext;
  updates: SessionNotification[];
  permissionRequests: RequestPermissionRequest[];
  /** fs calls the agent made: `read /abs` or `write /abs`. */
  fsCalls: string[];
  child: Deno.ChildProcess;
  /** Sends initialize and returns its answer. */
  initialize(): Promise<InitializeResponse>;
  /** Starts a session in the sandbox's cwd and returns its id. */
  newSession(): Promise<string>;
  /** Waits until an update satisfies `test` (polling the recorded list). */
  waitFor(test: (n: SessionNotification) => boolean, timeoutMs?: number): Promise<void>;
  /** stderr of the subprocess so far (complete after dispose). */
  stderr(): Promise<string>;
}

/**
 * Starts `harness acp ARGS` in the sandbox and connects the SDK client to it.
 *
 * @param sandbox The CLI sandbox (cwd, HOME, env).
 * @param args Flags after `acp` (model server, grants, --yes, ...).
 * @param options Permission answers and editor buffers.
 */
export function startAcpClient(
  sandbox: CliSandbox,
  args: string[],
  options: AcpClientOptions = {},
): AcpTestClient {
  const child = sandbox.spawn(["acp", ...args], { env: options.env ?? {} });
  const updates: SessionNotification[] = [];
  const permissionRequests: RequestPermissionRequest[] = [];
  const fsCalls: string[] = [];
  const answers = [...(options.permissions ?? [])];
  const files = options.editorFiles;
  let app = client({ name: "harness-test" })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(methods.client.session.requestPermission, async ({ params, signal }) => {
      permissionRequests.push(params);
      const answer = answers.shift() ?? "cancelled";
      if (answer === "wait") {
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        return { outcome: { outcome: "cancelled" } };
      }
      return answer === "cancelled"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId: answer } };
    });
  if (files) {
    app = app
      .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
        fsCalls.push(`read ${params.path}`);
        // As an editor does: an open buffer, else the file on disk.
        return { content: files.get(params.path) ?? await Deno.readTextFile(params.path) };
      })
      .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
        fsCalls.push(`write ${params.path}`);
        files.set(params.path, params.content);
        return {};
      });
  }
  const stderrText = new Response(child.stderr).text();
  const connection = app.connect(ndJsonStream(child.stdin, child.stdout));
  const agent = connection.agent;
  return {
    agent,
    updates,
    permissionRequests,
    fsCalls,
    child,
    initialize: () =>
      agent.request("initialize", {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: files
          ? { fs: { readTextFile: true, writeTextFile: true } }
          : { fs: { readTextFile: false, writeTextFile: false } },
      }),
    async newSession() {
      const created = await agent.request("session/new", {
        cwd: sandbox.cwd,
        mcpServers: [],
      });
      return created.sessionId;
    },
    async waitFor(test, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!updates.some(test)) {
        if (Date.now() > until) throw new Error(`no such update in ${JSON.stringify(updates)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    stderr: () => stderrText,
    async [Symbol.asyncDispose]() {
      connection.close();
      await child.stdin.close().catch(() => {});
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
      }, 10_000);
      await child.status;
      clearTimeout(timer);
      await stderrText.catch(() => "");
    },
  };
}

/** The `sessionUpdate` kinds of the recorded updates, in order. */
export function updateKinds(updates: readonly SessionNotification[]): string[] {
  return updates.map((n) => n.update.sessionUpdate);
}
