// git's part of the program table (program_options.ts): the global options before a
// subcommand, the subcommands shipped with git (any other name is an alias or a `git-NAME`
// program, which asks), and what subcommands and their options run: `config` writes settings
// that run programs later, `submodule foreach` and `bisect run` run the rest of the line,
// `--upload-pack`, `-x`, `--exec` and friends run their value.

import type { OptionTable } from "./option_reader.ts";
import {
  ASKS,
  CODE,
  names,
  type ProgramSpec,
  RUNS,
  type SubcommandSpec,
  WRITES,
} from "./program_spec.ts";

/** Options of git commands that fetch or push through a program, or run a diff program. */
const GIT_ANY: OptionTable = {
  optional: ["--open-files-in-pager", "-O"],
  flags: names("--ext-diff --no-ext-diff --exclude-standard --extended-regexp --exit-code"),
  effects: {
    "--upload-pack": RUNS,
    "--receive-pack": RUNS,
    "--ext-diff": ASKS,
    "--output": WRITES,
    "--template": ASKS,
  },
};

/** Every git subcommand shipped with git; any other name is an alias or a `git-NAME` program. */
const GIT_PLAIN_SUBCOMMANDS = (
  "add am annotate apply archimport backfill blame branch bugreport bundle cat-file " +
  "check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry " +
  "cherry-pick clean column commit commit-graph commit-tree count-objects cvsexportcommit " +
  "cvsimport describe diagnose diff diff-files diff-index diff-pairs diff-tree fast-export " +
  "fast-import fetch-pack fmt-merge-msg for-each-ref format-patch fsck fsck-objects gc " +
  "get-tar-commit-id hash-object http-fetch http-push index-pack init-db interpret-trailers " +
  "last-modified log ls-files ls-tree mailinfo mailsplit merge-base merge-file merge-tree " +
  "mktag mktree multi-pack-index mv name-rev notes p4 pack-objects pack-redundant pack-refs " +
  "patch-id prune prune-packed quiltimport range-diff read-tree reflog refs remote repack " +
  "replace replay request-pull rerere reset restore rev-list rev-parse revert rm send-pack " +
  "shortlog show show-branch show-index show-ref sparse-checkout stage stash status " +
  "stripspace svn switch symbolic-ref tag unpack-file unpack-objects update-index update-ref " +
  "update-server-info upload-archive var verify-commit verify-pack verify-tag version " +
  "whatchanged worktree write-tree help"
).split(" ");

const GIT_SUBCOMMANDS: Record<string, SubcommandSpec> = {
  ...Object.fromEntries(GIT_PLAIN_SUBCOMMANDS.map((name) => [name, {}])),
  config: {
    asks: true,
    plainWith: names(
      "--get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool -l --list get list",
    ),
    flags: ["-e", "--edit"],
    effects: { "-e": ASKS, "--edit": ASKS },
  },
  submodule: { runsAfter: "foreach", flags: ["--recursive", "-q", "--quiet"] },
  bisect: { runsAfter: "run" },
  difftool: { asks: true, effects: { "-x": RUNS, "--extcmd": RUNS }, values: ["-t", "--tool"] },
  mergetool: { asks: true },
  "filter-branch": {
    asks: true,
    effects: {
      "--setup": RUNS,
      "--env-filter": RUNS,
      "--tree-filter": RUNS,
      "--index-filter": RUNS,
      "--parent-filter": RUNS,
      "--msg-filter": RUNS,
      "--commit-filter": RUNS,
      "--tag-name-filter": RUNS,
    },
  },
  grep: { effects: { "-O": RUNS, "--open-files-in-pager": RUNS } },
  rebase: {
    flags: ["-i", "--interactive"],
    effects: { "-x": RUNS, "--exec": RUNS, "-i": ASKS, "--interactive": ASKS },
    values: names("-s --strategy -X --strategy-option --onto"),
  },
  clone: {
    effects: { "-u": RUNS, "-c": RUNS, "--config": RUNS },
    values: names("-b --branch -o --origin --depth --reference -j --jobs"),
  },
  init: {},
  fetch: {},
  pull: { values: ["-s", "--strategy", "-X", "--strategy-option"] },
  "ls-remote": {},
  push: { effects: { "--exec": RUNS }, values: ["-o", "--push-option", "--repo"] },
  archive: {
    effects: { "--exec": RUNS },
    values: names("--remote --prefix --format -o --output"),
  },
  "send-email": {
    asks: true,
    effects: {
      "--smtp-server": RUNS,
      "--sendmail-cmd": RUNS,
      "--to-cmd": RUNS,
      "--cc-cmd": RUNS,
      "--header-cmd": RUNS,
    },
  },
  instaweb: { asks: true, effects: { "-d": RUNS, "--httpd": RUNS, "-b": RUNS, "--browser": RUNS } },
  merge: {
    values: names("-s --strategy -X --strategy-option -m -F --file"),
    plainValues: {
      "-s": names("ort recursive resolve octopus ours subtree"),
      "--strategy": names("ort recursive resolve octopus ours subtree"),
    },
  },
  hook: { asks: true },
  "merge-index": { runsOperand: true, flags: ["-o", "-q", "-a"] },
  "merge-one-file": { asks: true },
  credential: { asks: true },
  "credential-cache": { asks: true },
  "credential-store": { asks: true },
  "web--browse": { asks: true },
  maintenance: { asks: true, plainWith: ["run"] },
  "for-each-repo": { asks: true },
  gui: { asks: true },
  citool: { asks: true },
  daemon: { asks: true },
  "imap-send": { asks: true },
  "fsmonitor--daemon": { asks: true },
  "http-backend": { asks: true },
  cvsserver: { asks: true },
  "upload-pack": {},
  "receive-pack": {},
};

/** git, by name in PROGRAMS. */
export const GIT: ProgramSpec = {
  values: names("-C --namespace --super-prefix --attr-source --list-cmds"),
  flags: names(
    "-p --paginate -P --no-pager --no-replace-objects --no-lazy-fetch --no-optional-locks " +
      "--no-advice --bare --literal-pathspecs --glob-pathspecs --noglob-pathspecs " +
      "--icase-pathspecs --html-path --man-path --info-path --version --help",
  ),
  optional: ["--exec-path"],
  effects: {
    "-c": RUNS,
    "--config-env": ASKS,
    "--git-dir": ASKS,
    "--work-tree": ASKS,
    "--exec-path": CODE,
  },
  subcommands: GIT_SUBCOMMANDS,
  anySubcommand: GIT_ANY,
  onlyKnownSubcommands: true,
};
