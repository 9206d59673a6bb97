// The file gate's data: what a caller asks (an access to a path), what the gate is built from
// (its rules: grants, deny lists, the protected set, hidden folders), how a worker receives it
// (a view), and what it answers (a verdict, a refusal, entries found moved). file_gate.ts
// decides; these types cross threads as plain data.

/** What a caller wants to do with a path; `delete` also covers the source of a rename. */
export type FileAccess = "read" | "list" | "stat" | "write" | "delete";

/** Why an entry is protected: each kind has its own sentence. */
export type ProtectedKind = "git" | "git_program" | "harness" | "project" | "plugins";

/** A path no tool, editor write, restore or command may write (a folder: all it holds). */
export interface ProtectedEntry {
  path: string;
  kind: ProtectedKind;
  /** What names it, for `git_program` (e.g. `core.fsmonitor in /w/.git/config`). */
  source?: string;
}

/**
 * A folder never read, listed or written for anyone (harness's data folder; its config folder,
 * which holds the API key and what decides trust), but for `except`.
 */
export interface HiddenEntry {
  path: string;
  /** Which of harness's folders it is: each has its own sentence. */
  kind: "data" | "config";
  /** What inside `path` stays visible (this workspace's saved outputs; skills, plugins). */
  except: string[];
}

/** What a gate is built from; plain data, so a worker gets the same rules. */
export interface GateRules {
  /** Readable paths (absolute); `true`: everything. */
  read: true | string[];
  /** Writable paths (absolute); `true`: everything. */
  write: true | string[];
  /** `--deny-read`; `true`: nothing is readable. */
  denyRead: true | string[];
  /** `--deny-write`; `true`: nothing is writable. */
  denyWrite: true | string[];
  protected: ProtectedEntry[];
  /** File names protected wherever they occur in a path (`.git` unless --writable-git). */
  protectedNames: string[];
  hidden: HiddenEntry[];
  /**
   * Plan mode's plan folder, when these rules are plan mode's: a write the grants refuse is
   * plan mode's doing, and its refusal says so rather than naming a flag.
   */
  planFolder?: string;
  /**
   * The user's own read and write grants, when these rules are a subagent's narrower ones: a
   * path the user's grants allow is refused by the agent's file, and the refusal says so.
   */
  narrowedFrom?: { read: true | string[]; write: true | string[] };
}

/** The role an entry recorded by identity plays. */
export type IdentityRole = "deny_read" | "deny_write" | "protected" | "hidden";

/** An entry's identity as found at start. */
export interface RecordedIdentity {
  path: string;
  dev: number;
  ino: number;
  directory: boolean;
  role: IdentityRole;
}

/** A gate as plain data: what a tool worker receives (`FileGate.fromView`). */
export interface GateView {
  rules: GateRules;
  identities: RecordedIdentity[];
  /** Names compare without case (macOS and Windows file systems usually do). */
  caseInsensitive: boolean;
  /**
   * The thread's own Deno permissions enforce the grants (a tool worker): the gate leaves
   * "not granted" to them and keeps the grants only to know where a moved entry can be.
   */
  grantsByDeno?: boolean;
}

/** Why the gate refused. */
export type RefusalReason = "not_granted" | "denied" | "protected" | "hidden" | "moved";

/** A refusal: the reason and the sentence for the model or the user. */
export interface GateRefusal {
  reason: RefusalReason;
  access: FileAccess;
  /** The path asked about, as given (made absolute). */
  path: string;
  message: string;
}

/** The gate's answer: the real path to use, or the refusal. */
export type GateVerdict = { ok: true; real: string } | { ok: false; refusal: GateRefusal };

/** A recorded entry that no longer resolves to the same identity (after a command). */
export interface MovedEntry {
  path: string;
  role: IdentityRole;
  /** `missing` (renamed or removed) or `replaced` (another file or folder there now). */
  now: "missing" | "replaced";
}

/** Options of {@linkcode FileGate.check}. */
export interface CheckOptions {
  /**
   * A folder whose files need no grant, where they really are: the workspace, for the files
   * harness reads there on the user's behalf without a read grant (instruction files, command
   * files). The deny lists, the protected set, hidden folders and identities still apply.
   */
  ungranted?: string;
}

/** Options of {@linkcode FileGate.open}. */
export interface GateOptions {
  /** Compare names without case; default: on macOS and Windows. */
  caseInsensitive?: boolean;
}
