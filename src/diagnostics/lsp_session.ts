// One running language server and the documents harness keeps open in it. After an edit the
// server is told the file's text before (when it does not hold it already) and after, each a
// new version, and only diagnostics made for the version after count: a server that pulls
// (textDocument/diagnostic) is asked for them; one that pushes must name that version, or
// publish after the change was sent. Nothing older is ever reported as the edit's.

import { pathToFileURL } from "../platform/file_urls.ts";
import type { Diagnostic } from "./diagnostic.ts";
import { LspClient } from "./lsp_client.ts";
import type { LspServerConfig } from "./lsp_config.ts";

/** An LSP diagnostic as servers send it (only the fields harness reads). */
interface WireDiagnostic {
  range?: { start?: { line?: number; character?: number } };
  severity?: number;
  message?: string;
}

/** A document harness keeps open in the server. */
interface OpenDocument {
  version: number;
  text: string;
}

/** The diagnostics last published for a document, and for which version. */
interface Published {
  version: number | undefined;
  diagnostics: Diagnostic[];
  /** When they arrived, by the session's sequence of changes. */
  after: number;
}

/** What one edit's check gave. */
export interface SessionDiagnostics {
  before: Diagnostic[];
  after: Diagnostic[];
  /** Other documents whose diagnostics changed meanwhile: uri to [before, after]. */
  others: Map<string, [Diagnostic[], Diagnostic[]]>;
}

/** Quiet time after a push without a version before its diagnostics are taken as final. */
const SETTLE_MS = 150;

/**
 * The same, for a push without a version that repeats the diagnostics the document had before
 * the change: most likely the old text's, sent again before the new text's (a slow machine
 * stretches the gap between the two well past SETTLE_MS).
 */
const REPEATED_SETTLE_MS = 1000;

function toDiagnostics(list: unknown, source: string): Diagnostic[] {
  if (!Array.isArray(list)) return [];
  return (list as WireDiagnostic[]).flatMap((d) => {
    const severity = d.severity ?? 1;
    if (severity > 2 || typeof d.message !== "string") return [];
    return [{
      line: (d.range?.start?.line ?? 0) + 1,
      column: (d.range?.start?.character ?? 0) + 1,
      severity: severity === 1 ? "error" as const : "warning" as const,
      message: d.message.split("\n")[0]!.trim(),
      source,
    }];
  });
}

/** A started server. */
export class LspSession {
  readonly config: LspServerConfig;
  readonly #client: LspClient;
  readonly ready: Promise<void>;
  readonly #docs = new Map<string, OpenDocument>();
  readonly #published = new Map<string, Published>();
  #pull = false;
  /** Counts changes sent, to tell a push that came after one. */
  #sequence = 0;
  #heard = Promise.withResolvers<void>();

  constructor(config: LspServerConfig, child: Deno.ChildProcess, workspace: string) {
    this.config = config;
    this.#client = new LspClient(child, config.settings);
    this.#client.onNotification = (method, params) => this.#notified(method, params);
    this.ready = this.#initialize(workspace);
  }

  /** Whether the server has ended. */
  get ended(): boolean {
    return this.#client.closed;
  }

  async #initialize(workspace: string): Promise<void> {
    const root = pathToFileURL(workspace).href;
    const result = await this.#client.request("initialize", {
      // The server runs in a PID namespace of its own, where harness's pid means nothing (a
      // server that watches it, as pyright does, would think harness gone and quit).
      processId: null,
      rootUri: root,
      rootPath: workspace,
      workspaceFolders: [{ uri: root, name: "workspace" }],
      capabilities: {
        textDocument: {
          synchronization: { didSave: false, dynamicRegistration: false },
          publishDiagnostics: { versionSupport: true, relatedInformation: false },
          diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
        },
        workspace: { configuration: true, workspaceFolders: true },
      },
      ...(this.config.initializationOptions !== undefined
        ? { initializationOptions: this.config.initializationOptions }
        : {}),
    }) as { capabilities?: { diagnosticProvider?: unknown } } | null;
    this.#pull = result?.capabilities?.diagnosticProvider !== undefined &&
      result.capabilities.diagnosticProvider !== null;
    this.#client.notify("initialized", {});
    if (this.config.settings !== undefined) {
      this.#client.notify("workspace/didChangeConfiguration", { settings: this.config.settings });
    }
  }

  #notified(method: string, params: unknown): void {
    if (method !== "textDocument/publishDiagnostics") return;
    const { uri, version, diagnostics } = params as {
      uri?: string;
      version?: number;
      diagnostics?: unknown;
    };
    if (typeof uri !== "string") return;
    this.#published.set(uri, {
      version: typeof version === "number" ? version : undefined,
      diagnostics: toDiagnostics(diagnostics, this.config.name),
      after: this.#sequence,
    });
    const heard = this.#heard;
    this.#heard = Promise.withResolvers<void>();
    heard.resolve();
  }

  /** Sends the document's new text as its next version (opening it the first time). */
  #change(uri: string, languageId: string, text: string): number {
    const doc = this.#docs.get(uri);
    this.#sequence++;
    if (!doc) {
      this.#docs.set(uri, { version: 1, text });
      this.#client.notify("textDocument/didOpen", {
        textDocument: { uri, languageId, version: 1, text },
      });
      return 1;
    }
    doc.version++;
    doc.text = text;
    this.#client.notify("textDocument/didChange", {
      textDocument: { uri, version: doc.version },
      contentChanges: [{ text }],
    });
    return doc.version;
  }

  /** The diagnostics of `uri` made for `version` (sent as change number `sequence`). */
  async #diagnosticsOf(uri: string, version: number, sequence: number): Promise<Diagnostic[]> {
    // Before any push, the document is known to have none.
    const prior = JSON.stringify(this.#published.get(uri)?.diagnostics ?? []);
    if (this.#pull) {
      const report = await this.#client.request("textDocument/diagnostic", {
        textDocument: { uri },
      }) as { kind?: string; items?: unknown } | null;
      if (report?.kind === "full") return toDiagnostics(report.items, this.config.name);
    }
    while (true) {
      const published = this.#published.get(uri);
      const fresh = published !== undefined &&
        (published.version === undefined
          ? published.after >= sequence
          : published.version === version);
      if (fresh) {
        // A server may publish a version more than once (a linter first, the type checker
        // next): take the last of the pushes that follow each other closely.
        const repeated = published.version === undefined &&
          JSON.stringify(published.diagnostics) === prior;
        const settleMs = repeated ? REPEATED_SETTLE_MS : SETTLE_MS;
        const quiet = await Promise.race([
          this.#heard.promise.then(() => false),
          new Promise<true>((settle) => setTimeout(() => settle(true), settleMs)),
        ]);
        if (quiet) return this.#published.get(uri)!.diagnostics;
        continue;
      }
      if (this.ended) {
        const words = this.#client.lastWords;
        throw new Error(`the server ended${words === "" ? "" : `: ${words.slice(0, 200)}`}`);
      }
      await this.#heard.promise;
    }
  }

  /**
   * The diagnostics of a file before and after an edit, and of the other open documents whose
   * diagnostics changed meanwhile. The caller bounds the wait.
   */
  async diagnose(
    path: string,
    languageId: string,
    texts: { before: string | null; after: string },
  ): Promise<SessionDiagnostics> {
    await this.ready;
    const uri = pathToFileURL(path).href;
    const othersBefore = new Map(
      [...this.#published].filter(([other]) => other !== uri).map(([o, p]) => [o, p.diagnostics]),
    );
    let before: Diagnostic[] = [];
    const doc = this.#docs.get(uri);
    const known = this.#published.get(uri);
    if (doc && doc.text === texts.before && known && known.version === doc.version) {
      before = known.diagnostics;
    } else if (texts.before !== null) {
      const version = this.#change(uri, languageId, texts.before);
      before = await this.#diagnosticsOf(uri, version, this.#sequence);
    }
    const version = this.#change(uri, languageId, texts.after);
    const after = await this.#diagnosticsOf(uri, version, this.#sequence);
    const others = new Map<string, [Diagnostic[], Diagnostic[]]>();
    for (const [other, published] of this.#published) {
      if (other === uri) continue;
      const old = othersBefore.get(other) ?? [];
      if (published.diagnostics !== old) others.set(other, [old, published.diagnostics]);
    }
    return { before, after, others };
  }

  /** Shuts the server down (and kills it when it does not go). */
  close(): Promise<void> {
    return this.#client.close();
  }
}
