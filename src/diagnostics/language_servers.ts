// The language servers of one workspace, started on demand: the first edit of a file a
// configured server handles starts it (through the caller's `start`, in the command sandbox),
// and every later edit of such a file asks it. A check never waits past the time limit: a
// server that does not answer in time is skipped with one short note (it keeps starting or
// working meanwhile), one that cannot start is said once and not tried again.

import type { LspServerConfig } from "./lsp_config.ts";
import { serverFor } from "./lsp_config.ts";
import { LspSession, type SessionDiagnostics } from "./lsp_session.ts";

/** What the servers need. */
export interface LanguageServersOptions {
  /** The configured servers (they may still be being found). */
  servers: Promise<readonly LspServerConfig[]>;
  workspace: string;
  /** Starts a server's process (stdin, stdout and stderr piped), in the command sandbox. */
  start(config: LspServerConfig): Promise<Deno.ChildProcess>;
  /** How long one check may wait for a server, start-up included. */
  timeoutMs: number;
}

/** What asking the servers about one edit gave. */
export interface ServerCheck {
  /** The server that answered, with what it found. */
  found?: { server: string; diagnostics: SessionDiagnostics };
  /** A line for the model: a server that did not answer, or could not start. */
  note?: string;
}

/** The servers of one workspace. */
export class LanguageServers {
  readonly #options: LanguageServersOptions;
  readonly #sessions = new Map<string, LspSession>();
  readonly #failed = new Map<string, string>();
  /** Each server's checks, one after another (its documents change in order). */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(options: LanguageServersOptions) {
    this.#options = options;
  }

  /**
   * Asks the server that handles `path` for the diagnostics of an edit; undefined when no
   * configured server handles the file.
   */
  async check(path: string, texts: { before: string | null; after: string }): Promise<
    ServerCheck | undefined
  > {
    const config = serverFor(await this.#options.servers, path);
    if (!config) return undefined;
    const failed = this.#failed.get(config.name);
    if (failed !== undefined) return {};
    let session = this.#sessions.get(config.name);
    if (!session || session.ended) {
      try {
        session = new LspSession(
          config,
          await this.#options.start(config),
          this.#options.workspace,
        );
      } catch (error) {
        const reason = `${config.name} could not start: ${(error as Error).message}`;
        this.#failed.set(config.name, reason);
        return { note: reason };
      }
      this.#sessions.set(config.name, session);
      session.ready.catch((error: Error) => {
        this.#failed.set(config.name, error.message);
      });
    }
    const ext = path.slice(path.lastIndexOf("."));
    const languageId = config.languages[ext] ?? ext.slice(1);
    const previous = this.#queues.get(config.name) ?? Promise.resolve();
    const current = session;
    const asked = previous.catch(() => {}).then(() => current.diagnose(path, languageId, texts));
    this.#queues.set(config.name, asked.catch(() => {}));
    return await this.#within(config.name, asked);
  }

  /** The server's answer, or the note that it did not come in time. */
  async #within(name: string, asked: Promise<SessionDiagnostics>): Promise<ServerCheck> {
    const seconds = Math.round(this.#options.timeoutMs / 100) / 10;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((settle) => {
      timer = setTimeout(() => settle("late"), this.#options.timeoutMs);
    });
    try {
      const answer = await Promise.race([asked, late]);
      if (answer === "late") {
        return { note: `${name} did not answer within ${seconds} s; its diagnostics were skipped` };
      }
      return { found: { server: name, diagnostics: answer } };
    } catch (error) {
      return { note: `${name} failed: ${(error as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops every server. */
  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.close()));
  }
}
