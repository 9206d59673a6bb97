// The processes behind grep_search and glob: ripgrep and fd, started by the host because the
// tool's worker has no run permission (and never gets one for them), inside the command
// sandbox built from the tool's read grant: read-only, every --deny-read path hidden, no
// network, no write, a clean environment. A search tool reaches them through a port handed
// to one call and sends what to search (search_protocol.ts), never a command line; without
// ripgrep, fd or a sandbox the tool searches with the built-in search.

import { relative, resolve } from "node:path";
import {
  type CommandSandbox,
  findProgram,
  probeCommandSandbox,
  spawnCommand,
} from "./command_sandbox.ts";
import { signalGroup, trackCommandGroup } from "./command_sandbox_groups.ts";
import { commandEnvironment } from "./command_sandbox_rules.ts";
import type { EffectivePermissions } from "./effective_permissions.ts";
import { emptyGrants, type Grants } from "./grants.ts";
import { fdFilesArguments, rgGrepArguments, rgRegex } from "../tools/search/search_arguments.ts";
import type {
  FilesRequest,
  GrepRequest,
  SearchReply,
  SearchRequest,
} from "../tools/search/search_protocol.ts";

/** The tools handed a search port. */
export const EXTERNAL_SEARCH_TOOLS: ReadonlySet<string> = new Set(["grep_search", "glob"]);

/** Where searches run here, found once per host. */
interface Sandbox {
  /** The sandbox searches run in; undefined (with the reason) when there is none. */
  sandbox: CommandSandbox | undefined;
  reason: string;
}

/** fd as found on PATH. */
interface Fd {
  path: string;
  /** fd 8.7 and later: --no-require-git (.gitignore files also outside a git repository). */
  requireGitFlag: boolean;
}

/** Options of {@linkcode SearchService}. */
export interface SearchServiceOptions {
  /** The user's grants (their --deny-read entries are hidden from every search). */
  grants: Grants;
  workspace: string;
  /** The host's command sandbox check, when it made one (its mode and confinement are reused). */
  commandSandbox?: Promise<CommandSandbox>;
  /** The environment programs are found in (default: harness's own). */
  env?: Record<string, string>;
}

/** Where a search process may look: the tool's read grant and the program, nothing else. */
function searchGrants(user: Grants, read: readonly string[]): Grants {
  const grants = emptyGrants();
  grants.allow.read = read;
  grants.deny.read = user.deny.read;
  return grants;
}

/** A request's folder: workspace-relative, inside it, with no `.`, `..` or empty parts. */
function validFolder(folder: unknown): folder is string {
  return typeof folder === "string" &&
    (folder === "" ||
      folder.split("/").every((part) => part !== "" && part !== "." && part !== ".."));
}

/** Whether a tool's message is a request this service serves, field by field. */
function validRequest(request: SearchRequest): request is GrepRequest | FilesRequest {
  if (request.type === "grep") {
    return typeof request.pattern === "string" && rgRegex(request.pattern) !== undefined &&
      typeof request.caseSensitive === "boolean" && typeof request.includeHidden === "boolean" &&
      typeof request.respectGitignore === "boolean" && typeof request.sorted === "boolean" &&
      Number.isInteger(request.maxCount) && request.maxCount > 0 &&
      validFolder(request.folder) &&
      (request.nameGlob === undefined || typeof request.nameGlob === "string") &&
      (request.topLevelOnly === undefined || typeof request.topLevelOnly === "boolean");
  }
  if (request.type === "files") {
    return validFolder(request.folder) && typeof request.includeHidden === "boolean" &&
      typeof request.parentIgnores === "boolean" &&
      (request.extension === undefined ||
        (typeof request.extension === "string" && /^\w+$/.test(request.extension)));
  }
  return false;
}

/** Runs the search processes of one tool host. */
export class SearchService {
  readonly #options: SearchServiceOptions;
  #sandbox: Promise<Sandbox> | undefined;
  #fdFound: Promise<Fd | undefined> | undefined;
  /** Process groups of calls still running, so close() can stop them. */
  readonly #running = new Set<number>();

  constructor(options: SearchServiceOptions) {
    this.#options = options;
  }

  #env(): Record<string, string> {
    return this.#options.env ?? Deno.env.toObject();
  }

  #probe(): Promise<Sandbox> {
    this.#sandbox ??= this.#findSandbox();
    return this.#sandbox;
  }

  async #findSandbox(): Promise<Sandbox> {
    const env = this.#env();
    const given = await this.#options.commandSandbox;
    const probed = given && given.confinement.kind !== "unused"
      ? given
      : await probeCommandSandbox(given?.mode === "off" ? "off" : "auto", {
        grants: this.#options.grants,
        env,
      });
    const { confinement } = probed;
    if (confinement.kind !== "bwrap" && confinement.kind !== "sandbox-exec") {
      return { sandbox: undefined, reason: confinement.kind === "none" ? confinement.reason : "" };
    }
    // Searches get the base variables only (PATH, HOME, LANG, ...), never what --allow-env adds.
    return { sandbox: { ...probed, env: commandEnvironment(emptyGrants(), env) }, reason: "" };
  }

  #rg(): string | undefined {
    return findProgram("rg", this.#env().PATH);
  }

  #fd(sandbox: CommandSandbox): Promise<Fd | undefined> {
    this.#fdFound ??= (async () => {
      const path = findProgram("fd", this.#env().PATH) ?? findProgram("fdfind", this.#env().PATH);
      if (path === undefined) return undefined;
      const help = await this.#capture(sandbox, path, ["--help"]);
      return help === undefined
        ? undefined
        : { path, requireGitFlag: help.includes("--no-require-git") };
    })();
    return this.#fdFound;
  }

  /** A program's standard output when it succeeds, run in the sandbox with no read grant. */
  async #capture(
    sandbox: CommandSandbox,
    program: string,
    args: string[],
  ): Promise<string | undefined> {
    try {
      const child = spawnCommand(sandbox, searchGrants(emptyGrants(), [program]), {
        program,
        args,
        cwd: "/",
      });
      const out = await child.output();
      return out.success ? new TextDecoder().decode(out.stdout) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * One line for `/tools`: what grep_search and glob search with here, and why.
   *
   * @example
   * ```ts
   * import { SearchService } from "./search_service.ts";
   * import { emptyGrants } from "./grants.ts";
   * const note = await new SearchService({ grants: emptyGrants(), workspace: "/", env: {} }).note();
   * if (!note.startsWith("search: built-in")) throw new Error(note);
   * ```
   */
  async note(): Promise<string> {
    const { sandbox, reason } = await this.#probe();
    if (sandbox === undefined) {
      return `search: built-in (ripgrep and fd run only in the command sandbox: ${reason})`;
    }
    const fd = await this.#fd(sandbox);
    const grep = this.#rg() ? "grep_search with ripgrep" : "grep_search built-in (no rg on PATH)";
    const glob = fd ? "glob with fd" : "glob built-in (no fd or fdfind on PATH)";
    return `search: ${grep}, ${glob}, in the command sandbox (${sandbox.confinement.kind})`;
  }

  /**
   * A port for one call of a search tool, and the function that ends the call: it stops
   * whatever the call still runs.
   *
   * @param effective The tool's sandbox (its read grant and the --deny-read entries in it).
   */
  open(effective: EffectivePermissions): { port: MessagePort; close(): void } {
    const channel = new MessageChannel();
    const host = channel.port1;
    let pid: number | undefined;
    let stopped = false;
    let closed = false;
    const stop = () => {
      stopped = true;
      if (pid !== undefined) signalGroup(pid, "SIGKILL");
    };
    let queue = Promise.resolve();
    host.onmessage = (event: MessageEvent<SearchRequest>) => {
      const request = event.data;
      if (request?.type === "stop") {
        stop();
        return;
      }
      queue = queue.then(async () => {
        if (closed) return;
        stopped = false;
        await this.#serve(request, effective, (reply) => {
          if (!closed) host.postMessage(reply);
        }, (started) => {
          pid = started;
          if (stopped) stop();
        }).catch((error) => {
          if (!closed) {
            host.postMessage({ type: "unavailable", reason: String(error) } satisfies SearchReply);
          }
        });
        pid = undefined;
      });
    };
    return {
      port: channel.port2,
      close: () => {
        closed = true;
        stop();
        host.close();
      },
    };
  }

  async #serve(
    request: SearchRequest,
    effective: EffectivePermissions,
    reply: (message: SearchReply) => void,
    onStart: (pid: number) => void,
  ): Promise<void> {
    const unavailable = (reason: string) => reply({ type: "unavailable", reason });
    if (!validRequest(request)) return unavailable("not a search request");
    const { sandbox, reason } = await this.#probe();
    if (sandbox === undefined) return unavailable(reason);
    const read = effective.permissions.read;
    if (read === false) return unavailable("the tool may not read");
    const workspace = resolve(this.#options.workspace);
    const readList = read === true ? [workspace] : read;
    const denied = (effective.guard.read ?? []).map((entry) => resolve(workspace, entry));
    if (denied.some((entry) => relative(entry, workspace).split("/")[0] !== "..")) {
      return unavailable("the sandbox denies reading the workspace");
    }
    const excluded = denied.map((entry) => relative(workspace, entry))
      .filter((path) => path !== "" && !path.startsWith("../"));
    let program: string;
    let args: string[];
    if (request.type === "grep") {
      const rg = this.#rg();
      if (rg === undefined) return unavailable("ripgrep is not on PATH");
      program = rg;
      args = rgGrepArguments(request, workspace, excluded);
    } else {
      const fd = await this.#fd(sandbox);
      if (fd === undefined) return unavailable("fd is not on PATH");
      // Before 8.7, fd honours .gitignore files only inside a git repository.
      if (!fd.requireGitFlag && (!request.parentIgnores || !this.#isRepository(workspace))) {
        return unavailable("this fd honours .gitignore only in a git repository");
      }
      program = fd.path;
      args = fdFilesArguments(request, workspace, excluded, { requireGitFlag: fd.requireGitFlag });
    }
    const child = spawnCommand(
      sandbox,
      searchGrants(this.#options.grants, [...readList, program]),
      {
        program,
        args,
        cwd: workspace,
        // No configuration from the user's home: global ignore files stay out, as in the
        // built-in search.
        env: { HOME: "/nonexistent", XDG_CONFIG_HOME: "/nonexistent" },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      },
      trackCommandGroup,
    );
    this.#running.add(child.pid);
    onStart(child.pid);
    reply({ type: "started", root: workspace, excluded });
    const stderr = new Response(child.stderr).text();
    let killed = false;
    try {
      for await (const chunk of child.stdout) reply({ type: "data", bytes: chunk });
    } catch {
      killed = true;
    }
    const status = await child.status;
    this.#running.delete(child.pid);
    killed ||= status.signal !== null;
    reply({
      type: "done",
      code: killed ? null : status.code,
      stderr: (await stderr).slice(0, 2000),
    });
  }

  #isRepository(workspace: string): boolean {
    try {
      Deno.statSync(`${workspace}/.git`);
      return true;
    } catch {
      return false;
    }
  }

  /** Stops every search still running. */
  close(): void {
    for (const pid of this.#running) signalGroup(pid, "SIGKILL");
    this.#running.clear();
  }
}
