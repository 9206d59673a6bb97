// The processes behind grep_search and glob: ripgrep and fd, started by the host because the
// tool's worker has no run permission (and never gets one for them), inside the command
// sandbox built from the tool's read grant: read-only, every --deny-read path hidden, no
// network, no write, a clean environment. A search tool reaches them through a port handed
// to one call and sends what to search (search_protocol.ts), never a command line; without
// ripgrep, fd or a sandbox the tool searches with the built-in search.

import { GLOB, GREP_SEARCH } from "../../tools/builtin_tools.ts";
import { relative, resolve } from "../../platform/paths.ts";
import {
  type CommandSandbox,
  type Confinement,
  spawnCommand,
} from "../commands/command_sandbox.ts";
import { findProgram, probeCommandSandbox } from "../commands/command_sandbox_probe.ts";
import { signalGroup, trackCommandGroup } from "../commands/command_sandbox_groups.ts";
import { commandEnvironment } from "../commands/command_sandbox_rules.ts";
import type { EffectivePermissions } from "../grants/effective_permissions.ts";
import { emptyGrants, type Grants } from "../grants/grants.ts";
import { fdFilesArguments, rgGrepArguments, rgRegex } from "../../tools/search/search_arguments.ts";
import type {
  FilesRequest,
  GrepRequest,
  SearchReply,
  SearchRequest,
} from "../../tools/search/search_protocol.ts";

/** The tools handed a search port. */
export const EXTERNAL_SEARCH_TOOLS: ReadonlySet<string> = new Set([GREP_SEARCH.name, GLOB.name]);

/** Where searches run here, found once per host. */
interface Sandbox {
  /** The sandbox searches run in; undefined (with the reason) when there is none. */
  sandbox: CommandSandbox | undefined;
  reason: string;
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

/** fd as Debian names it (fdfind) or as it is called elsewhere. */
function fdPath(env: Record<string, string>): string | undefined {
  return findProgram("fd", env.PATH) ?? findProgram("fdfind", env.PATH);
}

/** The confinement found on this system, without starting it. */
function foundConfinement(env: Record<string, string>): Confinement {
  if (Deno.build.os === "linux") {
    const bwrap = findProgram("bwrap", env.PATH);
    return bwrap === undefined
      ? {
        kind: "none",
        reason: "bubblewrap (bwrap) is not installed: install the bubblewrap package",
      }
      : { kind: "bwrap", program: bwrap };
  }
  if (Deno.build.os === "darwin") return { kind: "sandbox-exec", program: "/usr/bin/sandbox-exec" };
  return { kind: "none", reason: `harness has no command sandbox on ${Deno.build.os}` };
}

/**
 * The sandbox for searches: the host's checked one (its protections and seccomp filter kept)
 * or the confinement found, with the base variables only, never what --allow-env adds.
 */
function sandboxFor(
  checked: Pick<CommandSandbox, "mode" | "confinement"> & Partial<CommandSandbox>,
  env: Record<string, string>,
): Sandbox {
  const { confinement } = checked;
  if (confinement.kind !== "bwrap" && confinement.kind !== "sandbox-exec") {
    return { sandbox: undefined, reason: confinement.kind === "none" ? confinement.reason : "" };
  }
  return {
    sandbox: { ...checked, network: false, env: commandEnvironment(emptyGrants(), env) },
    reason: "",
  };
}

/** Sends a reply to the tool; `transfer` moves buffers the host no longer uses. */
type Reply = (message: SearchReply, transfer?: Transferable[]) => void;

/**
 * Passes a search process's standard output on to the tool: fd's listing whole (glob counts
 * every path: one message instead of a hundred for 38,000 paths), moved rather than copied,
 * ripgrep's lines as they come, so grep_search can stop it.
 *
 * @returns false when the reading failed (the process was killed).
 */
async function passOutput(
  stdout: ReadableStream<Uint8Array>,
  whole: boolean,
  reply: Reply,
): Promise<boolean> {
  try {
    if (whole) {
      const listing = await new Response(stdout).arrayBuffer();
      if (listing.byteLength > 0) {
        reply({ type: "data", bytes: new Uint8Array(listing) }, [listing]);
      }
    } else {
      for await (const chunk of stdout) reply({ type: "data", bytes: chunk });
    }
    return true;
  } catch {
    return false;
  }
}

/** Runs the search processes of one tool host. */
export class SearchService {
  readonly #options: SearchServiceOptions;
  #sandbox: Promise<Sandbox> | undefined;
  /** Set once an fd refused --no-require-git (before 8.7): only git repositories then. */
  #fdLacksRequireGit = false;
  /** Process groups of calls still running, so close() can stop them. */
  readonly #running = new Set<number>();
  /** ripgrep and fd as found on PATH, looked for once. */
  #programs: { rg: string | undefined; fd: string | undefined } | undefined;

  constructor(options: SearchServiceOptions) {
    this.#options = options;
  }

  #env(): Record<string, string> {
    return this.#options.env ?? Deno.env.toObject();
  }

  #program(name: "rg" | "fd"): string | undefined {
    if (this.#programs === undefined) {
      const env = this.#env();
      this.#programs = { rg: findProgram("rg", env.PATH), fd: fdPath(env) };
    }
    return this.#programs[name];
  }

  /**
   * The sandbox searches run in: the host's checked one when it made the check, else
   * bubblewrap or sandbox-exec where found, not started beforehand (a search that cannot start
   * its sandbox prints no statistics, and the tool then searches with the built-in search).
   */
  #where(): Promise<Sandbox> {
    this.#sandbox ??= (async () => {
      const env = this.#env();
      const given = await this.#options.commandSandbox;
      if (given && given.confinement.kind !== "unused") return sandboxFor(given, env);
      const confinement: Confinement = given?.mode === "off"
        ? { kind: "none", reason: 'command_sandbox is "off"' }
        : foundConfinement(env);
      // Without --allow-run too, the file gate's hidden folders stay hidden from the search.
      const protection = given?.protection ? { protection: given.protection } : {};
      return sandboxFor({ mode: given?.mode ?? "auto", confinement, ...protection }, env);
    })();
    return this.#sandbox;
  }

  /**
   * One line for `/tools`: what grep_search and glob search with here, and why. It checks
   * that the sandbox really starts.
   *
   * @example
   * ```ts
   * import { SearchService } from "./search_service.ts";
   * import { emptyGrants } from "../grants/grants.ts";
   * const note = await new SearchService({ grants: emptyGrants(), workspace: "/", env: {} }).note();
   * if (!note.startsWith("search: built-in")) throw new Error(note);
   * ```
   */
  async note(): Promise<string> {
    const env = this.#env();
    const given = await this.#options.commandSandbox;
    const checked = given && given.confinement.kind !== "unused"
      ? given
      : await probeCommandSandbox(given?.mode === "off" ? "off" : "auto", {
        grants: this.#options.grants,
        env,
      });
    const { sandbox, reason } = sandboxFor(checked, env);
    if (sandbox === undefined) {
      return `search: built-in (ripgrep and fd run only in the command sandbox: ${reason})`;
    }
    const grep = findProgram("rg", env.PATH)
      ? "grep_search with ripgrep"
      : "grep_search built-in (no rg on PATH)";
    const glob = fdPath(env) ? "glob with fd" : "glob built-in (no fd or fdfind on PATH)";
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
    // While the tool's worker starts the call, find the sandbox and the programs, so its
    // request waits only for the process (run once the caller has sent the call).
    queueMicrotask(() => {
      this.#where().catch(() => {});
      this.#program("fd");
    });
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
      if (request?.type === "grant") {
        const read = effective.permissions.read;
        host.postMessage(
          {
            type: "grant",
            read: read === true ? true : read === false ? [] : [...read],
          } satisfies SearchReply,
        );
        return;
      }
      queue = queue.then(async () => {
        if (closed) return;
        stopped = false;
        await this.#serve(request, effective, (reply, transfer = []) => {
          if (!closed) host.postMessage(reply, transfer);
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
    reply: Reply,
    onStart: (pid: number) => void,
  ): Promise<void> {
    const unavailable = (reason: string) => reply({ type: "unavailable", reason });
    if (!validRequest(request)) return unavailable("not a search request");
    const { sandbox, reason } = await this.#where();
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
    // fd honours .gitignore files outside a git repository only with --no-require-git
    // (fd 8.7 and later); inside one, and with the rules above the folder, it needs none.
    const requireGitFlag = request.type === "files" &&
      (!request.parentIgnores || !this.#isRepository(workspace));
    if (request.type === "grep") {
      const rg = this.#program("rg");
      if (rg === undefined) return unavailable("ripgrep is not on PATH");
      program = rg;
      args = rgGrepArguments(request, workspace, excluded);
    } else {
      const fd = this.#program("fd");
      if (fd === undefined) return unavailable("fd is not on PATH");
      if (requireGitFlag && this.#fdLacksRequireGit) {
        return unavailable("this fd honours .gitignore only in a git repository (8.7 adds more)");
      }
      program = fd;
      args = fdFilesArguments(request, workspace, excluded, { requireGitFlag });
    }
    // spawnCommand builds the same sandbox as for run_command (commandLaunch: bubblewrap's
    // arguments with each --deny-read path hidden as the host finds it, the seccomp filter
    // where the grants share the network) and leaves the program only stdin, stdout, stderr.
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
    let killed = !await passOutput(child.stdout, request.type === "files", reply);
    const status = await child.status;
    this.#running.delete(child.pid);
    killed ||= status.signal !== null;
    const errors = (await stderr).slice(0, 2000);
    if (requireGitFlag && status.code !== 0 && errors.includes("--no-require-git")) {
      this.#fdLacksRequireGit = true; // this fd is older than 8.7: not asked again
    }
    if (!killed && /^bwrap: /.test(errors)) {
      // The sandbox does not start here (user namespaces off?): the built-in search from now on.
      const reason = `bubblewrap cannot create a sandbox here: ${errors.split("\n")[0]}`;
      this.#sandbox = Promise.resolve({ sandbox: undefined, reason });
    }
    reply({ type: "done", code: killed ? null : status.code, stderr: errors });
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
