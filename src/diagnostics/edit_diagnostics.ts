// The diagnostics of one edit, as the model reads them after write_file, edit_file,
// replace_lines and insert_lines: the syntax check (always, in memory, on the text the edit
// wrote) and the language server configured for the file (when there is one), each kept to
// what the edit introduced, merged (a syntax error on a line the server already reports is
// said once), with other files the server says the edit broke. A clean edit adds nothing.

import { relative } from "../platform/paths.ts";
import { fileURLToPath } from "../platform/file_urls.ts";
import { type Diagnostic, newDiagnostics } from "./diagnostic.ts";
import { diagnosticsText, type FileDiagnostics } from "./diagnostics_text.ts";
import type { LanguageServers } from "./language_servers.ts";
import { SyntaxChecker } from "./syntax_check.ts";

/** One edit of one file. */
export interface EditedFile {
  /** The path as the call named it (what the model reads). */
  path: string;
  /** Its absolute path. */
  absolute: string;
  /** Its text before the edit; null for a file the edit created. */
  before: string | null;
  after: string;
}

/** The diagnostics engine of a workspace. */
export class EditDiagnostics {
  readonly #syntax = new SyntaxChecker();
  readonly #servers: LanguageServers | undefined;
  /** Parses of texts before edits, started while the edit runs. */
  readonly #prepared = new Map<string, Promise<unknown>>();
  readonly #workspace: string;

  constructor(options: { workspace: string; servers?: LanguageServers }) {
    this.#workspace = options.workspace;
    this.#servers = options.servers;
  }

  /**
   * What the edit introduced, as text for the model; undefined when it introduced nothing.
   *
   * @example
   * ```ts
   * import { EditDiagnostics } from "./edit_diagnostics.ts";
   * const engine = new EditDiagnostics({ workspace: "/w" });
   * const text = await engine.check({ path: "a.py", absolute: "/w/a.py", before: "x = 1\n", after: "x = (1\n" });
   * if (!text?.startsWith("[New problems after this edit]\na.py:1:")) throw new Error(text);
   * engine.close();
   * ```
   */
  async check(file: EditedFile): Promise<string | undefined> {
    await this.#prepared.get(file.absolute);
    this.#prepared.delete(file.absolute);
    const [syntax, server] = await Promise.all([
      this.#syntax.newErrors(file.absolute, file.before, file.after),
      this.#servers?.check(file.absolute, { before: file.before, after: file.after }),
    ]);
    let found: Diagnostic[] = syntax;
    const others: FileDiagnostics[] = [];
    if (server?.found) {
      const { before, after } = server.found.diagnostics;
      const fromServer = newDiagnostics(
        { text: file.before ?? "", diagnostics: before },
        { text: file.after, diagnostics: after },
      );
      const serverLines = new Set(
        fromServer.filter((d) => d.severity === "error").map((d) => d.line),
      );
      found = [...fromServer, ...syntax.filter((d) => !serverLines.has(d.line))];
      for (const [uri, [old, now]] of server.found.diagnostics.others) {
        const fresh = newDiagnostics({ text: "", diagnostics: old }, {
          text: "",
          diagnostics: now,
        });
        if (fresh.length > 0) others.push({ path: this.#shown(uri), text: "", diagnostics: fresh });
      }
    }
    return diagnosticsText(
      { path: file.path, text: file.after, diagnostics: found },
      others,
      server?.note === undefined ? [] : [server.note],
    );
  }

  /**
   * Parses a file's text before an edit while the edit runs, so that the check after it
   * reparses only what changed (a file's first edit too).
   *
   * @param absolute The file.
   * @param before Its text now.
   */
  prepare(absolute: string, before: string | null): void {
    if (before === null) return;
    this.#prepared.set(absolute, this.#syntax.errors(absolute, before).catch(() => []));
  }

  /** A document's path as the model names files: workspace-relative when inside it. */
  #shown(uri: string): string {
    const path = uri.startsWith("file:") ? fileURLToPath(uri) : uri;
    const inside = relative(this.#workspace, path);
    return inside.startsWith("..") ? path : inside;
  }

  /** Frees the parse trees and stops the language servers. */
  async close(): Promise<void> {
    this.#syntax.close();
    await this.#servers?.close();
  }
}
