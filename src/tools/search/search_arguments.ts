// The ripgrep and fd command lines behind grep_search and glob, built from a search request
// (search_protocol.ts) so that they see what the built-in walk (walk_tree.ts) sees: .gitignore
// files (also outside a git repository) and .git/info/exclude, but no .ignore, .rgignore or
// global ignore files; hidden names only when asked, even when a .gitignore `!` rule names
// them; never a version-control folder. ripgrep searches files of any size (the built-in
// search skips those of 50 MiB or more: it reads a file whole; checking each file's size
// made ripgrep half again slower). Values go after their flag, so a pattern or folder can
// never become a flag. Pure: the host runs what this builds.

import type { FilesRequest, GrepRequest } from "./search_protocol.ts";
import { VCS_DIRS } from "./walk_tree.ts";

/** Characters that are special in a ripgrep regex (escaped to be literal). */
const REGEX_META = /[\\.+*?()|[\]{}^$#&\-~]/g;

/** Characters that are special in ripgrep's and fd's globs (escaped to be literal). */
const GLOB_META = /[\\*?[\]{}!]/g;

/**
 * The ripgrep regex of a grep_search pattern: each piece literal, `*` any run of characters
 * within a line. The run may cross more than the built-in search's `*` (JavaScript's `.`
 * stops at `\r`, U+2028 and U+2029, ripgrep's at `\n` only, and it spans invalid UTF-8 too),
 * so ripgrep finds every line the built-in search finds and the caller checks each line
 * with the built-in's regex. Undefined for a pattern with a line break, which ripgrep cannot
 * search line by line.
 *
 * @example
 * ```ts
 * import { rgRegex } from "./search_arguments.ts";
 * if (rgRegex("a.b*c(") !== "a\\.b(?s-u:[^\\n])*c\\(") throw new Error(rgRegex("a.b*c(")!);
 * if (rgRegex("x\ny") !== undefined) throw new Error();
 * ```
 */
export function rgRegex(pattern: string): string | undefined {
  if (/[\n\r\u2028\u2029]/.test(pattern)) return undefined;
  return pattern.split("*").map((piece) => piece.replace(REGEX_META, "\\$&")).join(
    "(?s-u:[^\\n])*",
  );
}

/** A path or name as a glob that matches only itself. */
function literalGlob(text: string): string {
  return text.replace(GLOB_META, "\\$&");
}

/** The absolute folder to search: the tools mistake .gitignore rules above a relative one. */
function searchPath(root: string, folder: string): string {
  return folder === "" ? root : `${root}/${folder}`;
}

/** Flags both tools share: hidden names and version-control folders. */
function hiddenFlags(includeHidden: boolean, exclude: (glob: string) => string[]): string[] {
  // A .gitignore `!` rule would otherwise bring a hidden file back: the built-in walk never
  // shows hidden names unless asked.
  const flags = includeHidden ? ["--hidden"] : exclude(".*");
  for (const name of VCS_DIRS) flags.push(...exclude(literalGlob(name)));
  return flags;
}

/**
 * ripgrep's arguments for a grep request (run with the workspace as working folder).
 *
 * @param request What to search.
 * @param root The workspace's absolute path.
 * @param excluded Workspace-relative paths the search must not enter (denied by the sandbox).
 * @returns The arguments, ending with `-- ROOT/FOLDER`.
 *
 * @example
 * ```ts
 * import { rgGrepArguments } from "./search_arguments.ts";
 * const args = rgGrepArguments({
 *   type: "grep", pattern: "-e", caseSensitive: false, includeHidden: false,
 *   respectGitignore: true, maxCount: 201, sorted: false, folder: "",
 * }, "/w", ["secrets"]);
 * if (!args.includes("--regexp=\\-e") || !args.includes("--glob=!/secrets")) throw new Error();
 * ```
 */
export function rgGrepArguments(
  request: GrepRequest,
  root: string,
  excluded: readonly string[],
): string[] {
  const regex = rgRegex(request.pattern);
  if (regex === undefined) throw new Error(`rgGrepArguments: no regex for ${request.pattern}`);
  const exclude = (glob: string) => [`--glob=!${glob}`];
  const args = [
    "--no-config",
    "--no-messages",
    "--color=never",
    "--no-heading",
    "--with-filename",
    "--line-number",
    "--null",
    "--stats",
    // Bytes as they are: no BOM sniffing or UTF-16 transcoding (a NUL marks a binary file).
    "--encoding=none",
    `--max-count=${request.maxCount}`,
    request.caseSensitive ? "--case-sensitive" : "--ignore-case",
    ...(request.respectGitignore
      ? ["--no-ignore-dot", "--no-ignore-global", "--no-require-git"]
      : ["--no-ignore"]),
    ...hiddenFlags(request.includeHidden, exclude),
    ...excluded.flatMap((path) => exclude(`/${literalGlob(path)}`)),
  ];
  if (request.nameGlob !== undefined) {
    // A file type matches names after the ignore rules, so it cannot bring back an ignored
    // file as a --glob would.
    args.push(`--type-add=harnessfilter:${request.nameGlob}`, "--type=harnessfilter");
  }
  if (request.topLevelOnly) args.push("--max-depth=1");
  if (request.sorted) args.push("--sort=path");
  args.push(`--regexp=${regex}`, "--", searchPath(root, request.folder));
  return args;
}

/**
 * fd's arguments for a files request (run with the workspace as working folder): regular
 * files, symbolic links, FIFOs and sockets, as the built-in walk lists them.
 *
 * @param request What to list.
 * @param root The workspace's absolute path.
 * @param excluded Workspace-relative paths the listing must not enter.
 * @param options `requireGitFlag`: pass --no-require-git (fd 8.7 and later know it).
 * @returns The arguments.
 *
 * @example
 * ```ts
 * import { fdFilesArguments } from "./search_arguments.ts";
 * const args = fdFilesArguments(
 *   { type: "files", folder: "src", includeHidden: false, parentIgnores: true },
 *   "/w",
 *   ["src/keys"],
 *   { requireGitFlag: false },
 * );
 * if (!args.includes("--exclude=/keys") || args.at(-1) !== "--search-path=/w/src") {
 *   throw new Error(args.join(" "));
 * }
 * ```
 */
export function fdFilesArguments(
  request: FilesRequest,
  root: string,
  excluded: readonly string[],
  options: { requireGitFlag: boolean },
): string[] {
  const exclude = (glob: string) => [`--exclude=${glob}`];
  // fd anchors an exclusion at the folder it searches.
  const prefix = request.folder === "" ? "" : `${request.folder}/`;
  const args = [
    "--color=never",
    "--print0",
    "--type=f",
    "--type=l",
    "--type=p",
    "--type=s",
    // Without hidden names fd leaves them out itself, except those a .gitignore `!` rule
    // brings back, and lists what is inside _darcs: the tool drops both (fd_files.ts), which
    // costs less than an --exclude, tested on every path fd meets.
    ...(request.includeHidden ? hiddenFlags(true, exclude) : []),
    ...excluded.filter((path) => path.startsWith(prefix))
      .flatMap((path) => exclude(`/${literalGlob(path.slice(prefix.length))}`)),
  ];
  if (options.requireGitFlag) args.push("--no-require-git");
  if (!request.parentIgnores) args.push("--no-ignore-parent");
  if (request.extension !== undefined) args.push(`--extension=${request.extension}`);
  // From the workspace itself (fd's working folder) fd prints paths relative to it: a third
  // less output to read than with absolute paths on a 38k-file tree.
  // --print0 would otherwise prefix them with "./".
  args.push(
    request.folder === ""
      ? "--strip-cwd-prefix"
      : `--search-path=${searchPath(root, request.folder)}`,
  );
  return args;
}
