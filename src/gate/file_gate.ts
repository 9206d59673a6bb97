// The one gate every file access harness makes for anyone passes (DESIGN.md decision 19). It
// is built once at start from the grants, the deny lists, the protected set (protected_set.ts)
// and the hidden folders, and answers whether a path may be read, listed, stat'ed, written or
// deleted. Denied, protected and hidden entries are known by identity (device, inode) as well
// as by path, so a rename or a hard link does not carry them out of reach. Host code asks it
// directly (gated_files.ts does the I/O); a tool worker gets its view and asks the same
// decisions of its own copy (sandbox/workers/deny_guard.ts).

import { paths } from "../platform/paths.ts";
import type {
  CheckOptions,
  FileAccess,
  GateOptions,
  GateRefusal,
  GateRules,
  GateVerdict,
  GateView,
  HiddenEntry,
  IdentityRole,
  MovedEntry,
  ProtectedEntry,
  RecordedIdentity,
  RefusalReason,
} from "./gate_types.ts";
import {
  heldSentence,
  hiddenSentence,
  notGrantedSentence,
  protectedSentence,
  roleName,
  verbOf,
} from "./refusal_text.ts";
import { readGrantRefusal } from "./session_reads.ts";
import {
  identityKey,
  keyOf,
  lstatOrUndefined,
  movedKey,
  parentOf,
  realOf,
  realPathSync,
} from "./gate_paths.ts";

const { join, relative, resolve, sep } = paths;

/**
 * The one file gate of a run. Build it with {@linkcode FileGate.open} on the host, or with
 * {@linkcode FileGate.fromView} from the view a worker was sent.
 *
 * @example
 * ```ts
 * import { FileGate } from "./file_gate.ts";
 * const w = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.mkdir(`${w}/.git`);
 * await Deno.writeTextFile(`${w}/.env`, "KEY=1");
 * const gate = FileGate.open({
 *   read: [w], write: [w], denyRead: [`${w}/.env`], denyWrite: [],
 *   protected: [], protectedNames: [".git"], hidden: [],
 * });
 * if (!gate.check("write", `${w}/src/a.ts`).ok) throw new Error("a work file");
 * if (gate.check("write", `${w}/.git/config`).ok) throw new Error(".git is protected");
 * await Deno.rename(`${w}/.env`, `${w}/notes.txt`);
 * const moved = gate.check("read", `${w}/notes.txt`);
 * if (moved.ok || moved.refusal.reason !== "moved") throw new Error("known by identity");
 * await Deno.remove(w, { recursive: true });
 * ```
 */
export class FileGate {
  readonly #rules: GateRules;
  readonly #caseInsensitive: boolean;
  /** Recorded identities by `dev:ino`. */
  readonly #identities = new Map<string, RecordedIdentity>();
  /** Entries already reported moved (movedKey). */
  readonly #reported = new Set<string>();
  /** Every entry found moved this session, in order. */
  readonly #moved: MovedEntry[] = [];
  readonly #grantsByDeno: boolean;
  /** Folders readable for the rest of the session (a loaded skill's: session_reads.ts). */
  readonly #sessionReads: string[] = [];

  private constructor(view: GateView) {
    this.#rules = view.rules;
    this.#caseInsensitive = view.caseInsensitive;
    this.#grantsByDeno = view.grantsByDeno === true;
    for (const identity of view.identities) {
      this.#identities.set(identityKey(identity.dev, identity.ino), identity);
    }
  }

  /**
   * Builds the gate and records the identity of every denied, protected and hidden entry that
   * exists now (links resolved: a denied link protects what it leads to).
   *
   * @param rules The grants, deny lists, protected set and hidden folders (absolute paths).
   * @param options Case sensitivity of names.
   * @returns The gate.
   */
  static open(rules: GateRules, options: GateOptions = {}): FileGate {
    const os = Deno.build.os;
    const gate = new FileGate({
      rules,
      identities: [],
      caseInsensitive: options.caseInsensitive ?? (os === "darwin" || os === "windows"),
    });
    const roles: [IdentityRole, readonly string[]][] = [
      ["deny_read", rules.denyRead === true ? [] : rules.denyRead],
      ["deny_write", rules.denyWrite === true ? [] : rules.denyWrite],
      ["protected", rules.protected.map((entry) => entry.path)],
      // Hidden folders are not recorded: no tool, editor or command can reach them to move
      // them (commands see an empty folder there), and a read need not walk for them.
    ];
    for (const [role, list] of roles) for (const path of list) gate.#record(path, role);
    return gate;
  }

  /**
   * A gate from a view another thread built (a tool worker's copy of the host's gate).
   *
   * @param view What {@linkcode FileGate.view} returned.
   * @returns The same decisions, asked of this thread's file system functions.
   */
  static fromView(view: GateView): FileGate {
    return new FileGate(view);
  }

  /**
   * The gate as plain data for a worker.
   *
   * @param options `grantsByDeno`: the worker's own Deno permissions enforce the grants (its
   *   view allows every path the deny lists, protected set and identities leave).
   * @returns A structured-cloneable view.
   */
  view(options: { grantsByDeno?: boolean } = {}): GateView {
    const read = this.#rules.read === true ? true : [...this.#rules.read, ...this.#sessionReads];
    return {
      rules: { ...this.#rules, read },
      identities: [...this.#identities.values()],
      caseInsensitive: this.#caseInsensitive,
      ...(options.grantsByDeno ? { grantsByDeno: true } : {}),
    };
  }

  /** The rules the gate was built from. */
  get rules(): Readonly<GateRules> {
    return this.#rules;
  }

  /**
   * Makes a folder readable (never writable) for the rest of the session: a loaded skill's.
   * Refused for a folder the gate refuses, one that holds a denied, protected or hidden entry,
   * or one with a link leading out of it (session_reads.ts). The tool workers and the command
   * sandbox read the same list ({@linkcode FileGate.sessionReads}).
   *
   * @param folder The folder (its real path is granted).
   * @returns Its real path, and whether it was added (false: granted already), or why not.
   */
  grantRead(
    folder: string,
  ): { ok: true; real: string; added: boolean } | { ok: false; reason: string } {
    const real = realOf(resolve(folder));
    // Granted even inside the read grant: the read tools read only the workspace and these.
    if (this.#covers(this.#sessionReads, real)) return { ok: true, real, added: false };
    const why = readGrantRefusal(this, real);
    if (why !== undefined) return { ok: false, reason: why };
    this.#sessionReads.push(real);
    return { ok: true, real, added: true };
  }

  /** The folders granted for the session so far, in order (real paths; the list only grows). */
  sessionReads(): readonly string[] {
    return [...this.#sessionReads];
  }

  /**
   * Whether `access` to `path` is allowed, checked on the path as given and where it really
   * leads, and on the names its recorded entries had at start.
   *
   * @param access What the caller wants to do.
   * @param path An absolute path (relative ones resolve against the cwd).
   * @param options `ungranted`: a folder whose files need no grant (see CheckOptions).
   * @returns The real path to use, or the refusal with its sentence.
   */
  check(access: FileAccess, path: string, options: CheckOptions = {}): GateVerdict {
    const abs = resolve(path);
    const real = realOf(abs);
    const root = options.ungranted;
    const free = root !== undefined && this.#inside(root, abs) &&
      this.#inside(realOf(resolve(root)), real);
    for (const target of real === abs ? [abs] : [abs, real]) {
      const refusal = this.#byPath(access, target, abs);
      if (refusal && !(free && refusal.reason === "not_granted")) return { ok: false, refusal };
    }
    const moved = this.#byIdentity(access, real, abs);
    if (moved) return { ok: false, refusal: moved };
    return { ok: true, real };
  }

  /**
   * Throws `Deno.errors.NotCapable` with the refusal's sentence unless `access` is allowed.
   *
   * @returns The real path to use.
   */
  assert(access: FileAccess, path: string): string {
    const verdict = this.check(access, path);
    if (!verdict.ok) throw new Deno.errors.NotCapable(verdict.refusal.message);
    return verdict.real;
  }

  /**
   * Checks that every recorded entry still resolves to the identity it had (run after each
   * command, MCP call and hook). An entry that moved stays refused under any name; its new
   * occupant is recorded too, so both are known from now on.
   *
   * @returns The entries found moved and not reported before (each is reported once).
   */
  verify(): MovedEntry[] {
    this.#scan();
    const found = this.#moved.filter((entry) => !this.#reported.has(movedKey(entry)));
    for (const entry of found) this.#reported.add(movedKey(entry));
    return found;
  }

  /**
   * Why nothing may be approved without asking any more: the first entry found moved this
   * session. It looks again first, so a move made by anything that ran since the last
   * {@linkcode FileGate.verify} (a hook, an MCP server between its calls, a command still
   * running) stops auto-approval before the next call, reported or not.
   *
   * @returns A sentence naming the first entry that moved; undefined while none has.
   */
  autoApprovalStop(): string | undefined {
    this.#scan();
    const first = this.#moved[0];
    if (first === undefined) return undefined;
    return `Auto-approval is off for this session: "${first.path}" (${roleName(first.role)}) ` +
      `was ${first.now === "missing" ? "moved or removed" : "replaced"} since harness started`;
  }

  /** Finds the recorded entries that no longer resolve to their identity (each once). */
  #scan(): void {
    const seen = new Set(this.#moved.map(movedKey));
    for (const identity of [...this.#identities.values()]) {
      const info = lstatOrUndefined(identity.path);
      if (keyOf(info) === identityKey(identity.dev, identity.ino)) continue;
      const entry: MovedEntry = {
        path: identity.path,
        role: identity.role,
        now: info ? "replaced" : "missing",
      };
      if (seen.has(movedKey(entry))) continue;
      seen.add(movedKey(entry));
      this.#moved.push(entry);
      if (info) this.#record(identity.path, identity.role);
    }
  }

  #record(path: string, role: IdentityRole): void {
    let real: string;
    try {
      real = realPathSync(path);
    } catch {
      return; // not there now: the path rules cover it
    }
    const info = lstatOrUndefined(real);
    const key = keyOf(info);
    if (!info || key === undefined || this.#identities.has(key)) return;
    this.#identities.set(key, {
      path: real,
      dev: info.dev,
      ino: info.ino!,
      directory: info.isDirectory,
      role,
    });
  }

  #same(a: string, b: string): boolean {
    return this.#caseInsensitive ? a.toLowerCase() === b.toLowerCase() : a === b;
  }

  /** Whether `target` is `root` or inside it; both absolute and normalised (resolve). */
  #inside(root: string, target: string): boolean {
    const a = this.#caseInsensitive ? root.toLowerCase() : root;
    const b = this.#caseInsensitive ? target.toLowerCase() : target;
    if (b === a) return true;
    return b.startsWith(a.endsWith(sep) ? a : `${a}${sep}`);
  }

  #covers(list: true | readonly string[], target: string): boolean {
    return list === true || list.some((entry) => this.#inside(entry, target));
  }

  /** The hidden folder `target` is in (and not in one of its exceptions), if any. */
  #hidden(target: string): HiddenEntry | undefined {
    return this.#rules.hidden.find((entry) =>
      this.#inside(entry.path, target) && !entry.except.some((e) => this.#inside(e, target))
    );
  }

  /** The protected entry covering `target`, by path or by a protected name in it. */
  #protectedEntry(target: string): ProtectedEntry | undefined {
    const entry = this.#rules.protected.find((e) => this.#inside(e.path, target));
    if (entry) return entry;
    const names = this.#rules.protectedNames.map((n) =>
      this.#caseInsensitive ? n.toLowerCase() : n
    );
    if (names.length === 0) return undefined;
    const segments = target.split(sep);
    for (let i = 0; i < segments.length; i++) {
      const segment = this.#caseInsensitive ? segments[i]!.toLowerCase() : segments[i]!;
      if (names.includes(segment)) return { path: segments.slice(0, i + 1).join(sep), kind: "git" };
    }
    return undefined;
  }

  /** The path rules for one spelling of the target; `shown` is the path the caller gave. */
  #byPath(access: FileAccess, target: string, shown: string): GateRefusal | undefined {
    const rules = this.#rules;
    const refuse = (reason: RefusalReason, message: string): GateRefusal => ({
      reason,
      access,
      path: shown,
      message,
    });
    const hidden = this.#hidden(target);
    if (hidden) return refuse("hidden", hiddenSentence(access, shown, hidden.kind));
    if (access === "read" || access === "list" || access === "stat") {
      if (this.#covers(rules.denyRead, target)) {
        return refuse("denied", `Requires read access to "${shown}": it is denied by --deny-read`);
      }
      if (
        !this.#grantsByDeno && !this.#covers(rules.read, target) &&
        !this.#covers(this.#sessionReads, target)
      ) {
        return refuse("not_granted", notGrantedSentence("read", shown, this.#by("read", target)));
      }
      return undefined;
    }
    if (this.#covers(rules.denyWrite, target)) {
      return refuse("denied", `Requires write access to "${shown}": it is denied by --deny-write`);
    }
    const kept = this.#protectedEntry(target);
    if (kept) return refuse("protected", protectedSentence(kept, shown));
    if (access === "delete") {
      const held = this.#heldEntry(target);
      if (held) return refuse("protected", heldSentence(shown, held));
    }
    if (!this.#grantsByDeno && !this.#covers(rules.write, target)) {
      return refuse("not_granted", notGrantedSentence("write", shown, this.#by("write", target)));
    }
    return undefined;
  }

  /** What narrowed the user's grants where they would allow `target`: refusals name it. */
  #by(access: "read" | "write", target: string): { planFolder: string } | "subagent" | undefined {
    const { planFolder, narrowedFrom } = this.#rules;
    if (access === "write" && planFolder !== undefined) return { planFolder };
    return narrowedFrom && this.#covers(narrowedFrom[access], target) ? "subagent" : undefined;
  }

  /** A denied, protected or hidden path inside `target` (removing or moving it would carry it). */
  #heldEntry(target: string): string | undefined {
    const rules = this.#rules;
    const lists = [
      rules.denyRead === true ? [] : rules.denyRead,
      rules.denyWrite === true ? [] : rules.denyWrite,
      rules.protected.map((e) => e.path),
      rules.hidden.map((e) => e.path),
    ].flat();
    const held = lists.find((entry) => entry !== target && this.#inside(target, entry));
    if (held) return held;
    for (const name of rules.protectedNames) {
      const candidate = join(target, name);
      if (lstatOrUndefined(candidate)) return candidate;
    }
    return undefined;
  }

  /**
   * The identity rule: walks from `real` up to the root; an ancestor (or the target) that is a
   * recorded entry under another name is judged by the name it had at start.
   */
  #byIdentity(access: FileAccess, real: string, shown: string): GateRefusal | undefined {
    // Most reads have no recorded entry to meet (only --deny-read ones apply to them), and a
    // recorded file can only be the target itself: the folders above are walked only for a
    // recorded folder, and only up to the write grant holding the target (an entry can be
    // moved only where something may write).
    const kinds = this.#walks(access);
    if (kinds === "none") return undefined;
    const stop = kinds === "target" ? real : this.#writeRoot(real);
    if (stop === undefined) return undefined;
    for (let current = real;;) {
      const key = keyOf(lstatOrUndefined(current));
      const recorded = key === undefined ? undefined : this.#identities.get(key);
      if (
        recorded && !this.#same(recorded.path, current) && this.#roleApplies(recorded.role, access)
      ) {
        const rest = relative(current, real);
        const original = rest === "" ? recorded.path : join(recorded.path, rest);
        const refusal = this.#byPath(access, original, original);
        if (refusal && refusal.reason !== "not_granted") {
          return {
            reason: "moved",
            access,
            path: shown,
            message: `Cannot ${verbOf(access)} "${shown}": it is "${original}" under another ` +
              `name (the same ${recorded.directory ? "folder" : "file"} by device and inode), ` +
              `and ${refusal.message.replace(/^[^:]*: /, "")}`,
          };
        }
      }
      const parent = parentOf(current);
      if (parent === current || current === stop) return undefined;
      current = parent;
    }
  }

  /** Which recorded entries an access can meet: none, files only (the target), or folders. */
  #walks(access: FileAccess): "none" | "target" | "folders" {
    let found: "none" | "target" | "folders" = "none";
    for (const identity of this.#identities.values()) {
      if (!this.#roleApplies(identity.role, access)) continue;
      if (identity.directory) return "folders";
      found = "target";
    }
    return found;
  }

  /**
   * The outermost write grant holding `real` (the root when everything is writable), if any:
   * the identity walk ends there.
   */
  #writeRoot(real: string): string | undefined {
    const write = this.#rules.write;
    if (write === true) return resolve("/");
    let root: string | undefined;
    for (const entry of write) {
      if (this.#inside(entry, real) && (root === undefined || entry.length < root.length)) {
        root = entry;
      }
    }
    return root;
  }

  #roleApplies(role: IdentityRole, access: FileAccess): boolean {
    if (role === "hidden") return true;
    const reads = access === "read" || access === "list" || access === "stat";
    if (role === "deny_read") return reads || access === "delete";
    return !reads;
  }
}
