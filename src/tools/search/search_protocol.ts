// The messages between a search tool (grep_search, glob, in its sandbox worker) and the host's
// search processes (src/sandbox/processes/search_service.ts), over a port handed to one call. The
// tool sends what to search, never an argument list; the host builds the ripgrep or fd command from
// it (search_arguments.ts), runs it in the command sandbox and streams its output back.

/** Lines containing a pattern (ripgrep), in walk order when `sorted`. */
export interface GrepRequest {
  type: "grep";
  /** The grep_search pattern (`*` matches within a line), never a flag. */
  pattern: string;
  caseSensitive: boolean;
  includeHidden: boolean;
  respectGitignore: boolean;
  /** Matching lines ripgrep reports per file at most. */
  maxCount: number;
  /** One thread, files in path order: the output can be cut where enough is found. */
  sorted: boolean;
  /** Workspace-relative folder to search ("" for the whole workspace). */
  folder: string;
  /** Only files whose name matches this glob (a plain `*.ext`-like name glob). */
  nameGlob?: string;
  /** Only the folder's direct children. */
  topLevelOnly?: boolean;
}

/** Files under a folder (fd), in no particular order. */
export interface FilesRequest {
  type: "files";
  /** Workspace-relative folder ("" for the whole workspace). */
  folder: string;
  includeHidden: boolean;
  /** Apply the .gitignore files of the folders above `folder` (false when one ignores it). */
  parentIgnores: boolean;
  /** Only files with this extension (a cheap prefilter: fd compares it without case). */
  extension?: string;
}

/** What a tool asks; `grant` asks for the call's read grant (answered with `grant`). */
export type SearchRequest = GrepRequest | FilesRequest | { type: "stop" } | { type: "grant" };

/** What the host answers: `started`, then `data` chunks, then `done`; or `unavailable`. */
export type SearchReply =
  /**
   * The process runs. It prints paths under `root` (the workspace's absolute path: ripgrep
   * and fd apply the .gitignore files above a folder given by absolute path correctly, not
   * above a relative one). `excluded` are the workspace-relative paths it may not see (the
   * sandbox's --deny-read entries inside the workspace), so the tool can name those it met.
   */
  | { type: "started"; root: string; excluded: string[] }
  /** A chunk of the process's standard output. */
  | { type: "data"; bytes: Uint8Array }
  /** The process ended (`code` null when it was stopped); `stderr` is its start. */
  | { type: "done"; code: number | null; stderr: string }
  /** No process can run for this request: use the built-in search. */
  | { type: "unavailable"; reason: string }
  /**
   * The tool's read grant (true: everything; else absolute paths), so the built-in search
   * walks only what it may read.
   */
  | { type: "grant"; read: true | string[] };
