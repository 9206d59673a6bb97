// The workspaces of one run, one per folder (and per set of an editor's MCP servers), each
// opened once: the REPL and -p have one, ACP one per folder an editor starts sessions in. A
// workspace whose policy files were broken is forgotten, so the next request reads them again.

import { ok, type Result } from "../errors.ts";
import type { McpServerConfig } from "../config/mcp_config.ts";
import type { LoadedRule } from "../permissions/policy.ts";
import type { OpenedProvider } from "./provider_openers.ts";
import type { FrontEnd } from "./front_end.ts";
import {
  loadWorkspaceRules,
  openWorkspace,
  type RunFailure,
  type Workspace,
  type WorkspaceModel,
  type WorkspaceRequest,
} from "./open_workspace.ts";

/** Extras of one workspace: an editor's MCP servers. */
export interface WorkspaceExtras {
  mcpServers?: Record<string, McpServerConfig>;
}

/** What every workspace of the run is opened with. */
export type WorkspacesRequest = Omit<WorkspaceRequest, "cwd" | "mcpServers">;

/** The open (and opening) workspaces of a run, by folder and extras. */
export class Workspaces {
  readonly #request: WorkspacesRequest;
  readonly #frontEnd: FrontEnd;
  readonly #opening = new Map<string, Promise<Result<Workspace, RunFailure>>>();
  /** Rules a caller loaded already, for the one folder they belong to. */
  readonly #loaded = new Map<string, LoadedRule[]>();
  /** The provider once open: the workspaces' tools ask for it when they need it. */
  #provider: OpenedProvider | undefined;
  /** Settles when the provider opened (or the run closed without one). */
  readonly #opened = Promise.withResolvers<OpenedProvider | undefined>();
  readonly #model: WorkspaceModel = {
    provider: () => this.#provider?.provider,
    contextLength: () => this.#provider?.contextLength,
    server: async () => {
      const opened = await this.#opened.promise;
      if (opened === undefined) return undefined;
      return {
        ...(opened.baseUrl ? { baseUrl: opened.baseUrl } : {}),
        provider: opened.provider.name,
      };
    },
  };

  constructor(request: WorkspacesRequest, frontEnd: FrontEnd) {
    this.#request = request;
    this.#frontEnd = frontEnd;
  }

  /** The provider is open: the code tools and the offered filter may use it from now on. */
  setProvider(provider: OpenedProvider): void {
    this.#provider = provider;
    this.#opened.resolve(provider);
  }

  /** Rules loaded for `cwd` already: its workspace (without extras) opens over them. */
  useRules(cwd: string, rules: LoadedRule[]): void {
    this.#loaded.set(cwd, rules);
  }

  /** The workspace of a folder with these extras, opened on the first call. */
  open(cwd: string, extras: WorkspaceExtras = {}): Promise<Result<Workspace, RunFailure>> {
    const key = JSON.stringify([cwd, extras.mcpServers ?? {}]);
    const known = this.#opening.get(key);
    if (known) return known;
    const given = extras.mcpServers === undefined ? this.#loaded.get(cwd) : undefined;
    const opening =
      (given ? Promise.resolve(ok(given)) : loadWorkspaceRules(cwd, this.#request.policies))
        .then(async (rules) => {
          if (!rules.ok) return rules;
          const request: WorkspaceRequest = {
            ...this.#request,
            cwd,
            ...(extras.mcpServers ? { mcpServers: extras.mcpServers } : {}),
          };
          return ok(await openWorkspace(request, rules.value, this.#frontEnd, this.#model));
        });
    this.#opening.set(key, opening);
    // A broken policy file is read again next time (the user may have fixed it).
    void opening.then((opened) => opened.ok || this.#opening.delete(key));
    return opening;
  }

  /** Closes a workspace and forgets it: the next call for its folder opens it again. */
  async close(workspace: Workspace): Promise<void> {
    for (const [key, opening] of this.#opening) {
      const opened = await opening;
      if (opened.ok && opened.value === workspace) this.#opening.delete(key);
    }
    await workspace.close();
  }

  /** Closes every workspace (those still opening once they are open). */
  async closeAll(): Promise<void> {
    this.#opened.resolve(undefined); // a run closed before its provider opened has none
    const opened = await Promise.all(this.#opening.values());
    this.#opening.clear();
    await Promise.all(opened.map((w) => w.ok ? w.value.close() : undefined));
  }
}
