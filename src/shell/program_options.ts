// What programs do with their options, as one table of data: the options and subcommands that
// make a program run another program (`tar --to-command`, `git submodule foreach`), run code
// (`make --eval`, `vim -c`), read commands or settings from elsewhere (`git --git-dir`, `awk
// -f`) or write files (`sort -o`), and the global options a subcommand follows (`git -C DIR`).
// program_effects.ts applies it for the policy; option_reader.ts reads options the way each
// program does. A program missing here is matched by its words alone.
//
// Options are listed as the program spells them. Where several long options share a prefix
// with one that acts, they are listed too, so an abbreviation resolves as getopt resolves it
// (`--checkpoint=10` is not `--checkpoint-action`); an abbreviation of several options takes
// the strongest effect among them.

import type { OptionTable } from "./option_reader.ts";
import { GIT } from "./git_options.ts";
import {
  ASKS,
  CODE,
  names,
  type ProgramSpec,
  RUNS,
  type SubcommandSpec,
  WRITES,
} from "./program_spec.ts";

/** npm reads its options anywhere on the line, before or after the subcommand. */
const NPM_OPTIONS: OptionTable = {
  values: names(
    "--prefix -C --cache --registry -w --workspace --loglevel --tag --scope --otp --omit " +
      "--include --before --location",
  ),
  flags: names("-g --global -s --silent -q --quiet -d --verbose -y --yes"),
  effects: {
    "--script-shell": RUNS,
    "--shell": RUNS,
    "--git": RUNS,
    "--editor": RUNS,
    "--browser": RUNS,
    "--node-options": ASKS,
    "--userconfig": ASKS,
    "--globalconfig": ASKS,
  },
};

/** Programs by name; see {@linkcode ProgramSpec}. */
export const PROGRAMS: Readonly<Record<string, ProgramSpec>> = {
  git: GIT,
  tar: {
    oldStyle: true,
    values: names(
      "-b -C -f -g -H -K -L -N -T -V -X --directory --file --exclude --exclude-from " +
        "--files-from --format --transform --strip-components --owner --group --mode --mtime " +
        "--newer --label",
    ),
    optional: ["--checkpoint", "--backup"],
    flags: names("--to-stdout --totals --check-links --checkpoint -x -c -t -v"),
    effects: {
      "-I": RUNS,
      "-F": RUNS,
      "--use-compress-program": RUNS,
      "--to-command": RUNS,
      "--info-script": RUNS,
      "--new-volume-script": RUNS,
      "--checkpoint-action": RUNS,
      "--rsh-command": RUNS,
      "--rmt-command": RUNS,
      "--index-file": WRITES,
    },
  },
  rsync: {
    values: names(
      "-f --filter --exclude --include --exclude-from --include-from --files-from -T " +
        "--temp-dir --password-file --chmod --chown --port --timeout -B --block-size " +
        "--partial-dir --backup-dir --suffix --compare-dest --copy-dest --link-dest --max-size " +
        "--min-size --bwlimit --out-format --iconv",
    ),
    flags: names("--recursive --relative --remove-source-files -r -a -v -z"),
    effects: {
      "-e": RUNS,
      "--rsh": RUNS,
      "--rsync-path": RUNS,
      "--log-file": WRITES,
      "--write-batch": WRITES,
      "--only-write-batch": WRITES,
    },
  },
  scp: {
    values: names("-c -i -J -l -P -X -D"),
    effects: { "-S": RUNS, "-o": RUNS, "-F": ASKS },
  },
  sftp: {
    values: names("-c -i -J -l -P -R -s -X"),
    effects: { "-S": RUNS, "-o": RUNS, "-D": RUNS, "-F": ASKS, "-b": ASKS },
  },
  // zip's own parser reads `-TT` as one option: written with one dash, as Go's are.
  zip: { singleDash: true, effects: { "--TT": RUNS, "--unzip-command": RUNS } },
  rg: {
    values: names(
      "-A -B -C -e -f -g --glob -j -m -M -t -T -E --type --type-not --pre-glob --ignore-file " +
        "--max-count --max-columns --regexp --replace -r",
    ),
    flags: names("--pretty --no-pre -p --no-ignore --hidden -i -n -l"),
    effects: { "--pre": RUNS, "--hostname-bin": RUNS },
  },
  sort: {
    values: names(
      "-k --key -t --field-separator -S --buffer-size -T --temporary-directory --batch-size " +
        "--parallel --files0-from --random-source",
    ),
    effects: { "--compress-program": RUNS, "-o": WRITES, "--output": WRITES },
  },
  split: {
    values: names("-a -b -C -l -n -t --additional-suffix --lines --bytes"),
    optional: ["--numeric-suffixes", "--hex-suffixes"],
    effects: { "--filter": RUNS },
  },
  sdiff: { effects: { "--diff-program": RUNS, "-o": WRITES, "--output": WRITES } },
  diff3: { effects: { "--diff-program": RUNS } },
  sed: {
    values: ["-l", "--line-length", "-e", "--expression"],
    optional: ["-i", "--in-place"],
    flags: names("--sandbox -n -E -r -s -u -z --posix --debug"),
    effects: { "-f": ASKS, "--file": ASKS },
    script: { language: "sed", options: ["-e", "--expression"], files: ["-f", "--file"] },
    sandbox: ["--sandbox"],
    inPlace: ["-i", "--in-place"],
  },
  awk: awkSpec(),
  gawk: awkSpec(),
  mawk: awkSpec(),
  nawk: awkSpec(),
  man: {
    values: names("-M --manpath -p --preprocessor -E --encoding -L --locale"),
    optional: names("-H --html -T --troff-device -X"),
    effects: {
      "-P": RUNS,
      "--pager": RUNS,
      "-H": RUNS,
      "--html": RUNS,
      "-C": ASKS,
      "--config-file": ASKS,
    },
  },
  make: {
    seeThrough: true,
    assignments: true,
    values: names(
      "-C --directory -f --file --makefile -I --include-dir -o --old-file --assume-old -W " +
        "--what-if --new-file --assume-new -l --load-average",
    ),
    optional: names("-j --jobs -O --output-sync --debug --shuffle"),
    flags: ["--environment-overrides", "-e"],
    effects: { "--eval": CODE, "-E": CODE },
  },
  go: {
    values: ["-C"],
    subcommands: {
      ...Object.fromEntries(
        ("bug build clean doc fix fmt get install list mod work run telemetry test tool " +
          "version vet").split(" ").map((name) => [name, {}]),
      ),
      generate: { asks: true },
      env: { flags: ["-w", "-u"], effects: { "-w": ASKS, "-u": ASKS } },
    },
    anySubcommand: {
      singleDash: true,
      values: names("--run --tags --o --p --count --timeout --bench"),
      effects: {
        "--exec": RUNS,
        "--toolexec": RUNS,
        "--vettool": RUNS,
        "--overlay": ASKS,
        "--modfile": ASKS,
      },
    },
  },
  npm: npmSpec(),
  npx: { effects: { "-c": RUNS, "--call": RUNS, "--script-shell": RUNS, "--shell": RUNS } },
  pnpm: { seeThrough: true, values: names("-C --dir -F --filter -w") },
  yarn: { seeThrough: true, values: ["--cwd"] },
  docker: containerSpec(),
  podman: {
    ...containerSpec(),
    effects: {
      "--config": ASKS,
      "--hooks-dir": ASKS,
      "--module": ASKS,
      "--runtime": RUNS,
      "--conmon": RUNS,
      "--network-cmd-path": RUNS,
    },
  },
  kubectl: {
    seeThrough: true,
    values: names(
      "-n --namespace --context --cluster --user -s --server --token --as --request-timeout -v",
    ),
    effects: { "--kubeconfig": ASKS },
  },
  cargo: {
    values: names("-C --color -j --jobs --manifest-path -p --package"),
    flags: names("--locked --offline --frozen -v -q --verbose --quiet"),
    effects: { "--config": RUNS, "-Z": ASKS },
    anySubcommand: { effects: { "--config": RUNS, "-Z": ASKS } },
    onlyKnownSubcommands: true,
    toolchain: true,
    subcommands: Object.fromEntries(
      ("add b bench build c check clean clippy config d doc fetch fix fmt generate-lockfile " +
        "help info init install locate-project login logout metadata new owner package pkgid " +
        "publish r remove report run rustc rustdoc search t test tree uninstall update vendor " +
        "verify-project version yank").split(" ").map((name) => [name, {}]),
    ),
  },
  vim: vimSpec(),
  vi: vimSpec(),
  nvim: vimSpec(),
  view: vimSpec(),
  vimdiff: vimSpec(),
  gvim: vimSpec(),
  rvim: vimSpec(),
  ex: { code: true },
  ed: { code: true },
  less: {
    values: names("-b -h -j -p -P -t -T -x -y -z"),
    effects: {
      "-o": WRITES,
      "-O": WRITES,
      "--log-file": WRITES,
      "--LOG-FILE": WRITES,
      "-k": ASKS,
      "--lesskey-file": ASKS,
      "--lesskey-src": ASKS,
      "--lesskey-content": ASKS,
    },
    plusPlain: /^\+(\d+|[FGg]+|\/[^!|]*)$/,
  },
  emacs: {
    singleDash: true,
    effects: {
      "--eval": CODE,
      "--execute": CODE,
      "--funcall": ASKS,
      "-f": ASKS,
      "-l": ASKS,
      "--load": ASKS,
      "--script": ASKS,
      "-x": ASKS,
    },
  },
  emacsclient: { effects: { "--eval": CODE, "-e": CODE, "-a": RUNS, "--alternate-editor": RUNS } },
  gdb: {
    singleDash: true,
    values: names("-p --pid -c --core --cd -d --directory"),
    effects: {
      "--ex": CODE,
      "--eval-command": CODE,
      "--iex": CODE,
      "--init-eval-command": CODE,
      "-x": ASKS,
      "--command": ASKS,
      "--ix": ASKS,
      "--init-command": ASKS,
    },
  },
  wget: {
    values: names("-P --directory-prefix -t --tries -U --user-agent"),
    effects: {
      "-e": ASKS,
      "--execute": ASKS,
      "--config": ASKS,
      "--use-askpass": RUNS,
      "-o": WRITES,
      "--output-file": WRITES,
      "-a": WRITES,
      "--append-output": WRITES,
      "-O": WRITES,
      "--output-document": WRITES,
    },
  },
  crontab: { asks: true, plainWith: ["-l"] },
};

function awkSpec(): ProgramSpec {
  return {
    values: names("-v --assign -F --field-separator -e --source"),
    optional: names("-o --pretty-print -p --profile -d --dump-variables -D --debug -L --lint"),
    flags: names("--sandbox -b -c -C -g -h -M -n -N -O -P -r -S"),
    effects: {
      "-f": ASKS,
      "--file": ASKS,
      "-E": ASKS,
      "--exec": ASKS,
      "-i": ASKS,
      "--include": ASKS,
      "-l": CODE,
      "--load": CODE,
      "-o": WRITES,
      "--pretty-print": WRITES,
      "-p": WRITES,
      "--profile": WRITES,
      "-d": WRITES,
      "--dump-variables": WRITES,
    },
    script: {
      language: "awk",
      options: ["-e", "--source"],
      files: ["-f", "--file", "-E", "--exec"],
    },
    sandbox: ["--sandbox"],
  };
}

function npmSpec(): ProgramSpec {
  const exec: SubcommandSpec = { effects: { "-c": RUNS, "--call": RUNS } };
  const config: SubcommandSpec = { asks: true, plainWith: ["get", "list", "ls"] };
  return {
    ...NPM_OPTIONS,
    seeThrough: true,
    subcommands: { config, c: config, set: { asks: true }, exec, x: exec },
    anySubcommand: NPM_OPTIONS,
  };
}

function containerSpec(): ProgramSpec {
  return {
    seeThrough: true,
    values: names(
      "-H --host -c --context -l --log-level --tlscacert --tlscert --tlskey --url --connection " +
        "--root --runroot",
    ),
    flags: names("-D --debug --tls --tlsverify --remote"),
    effects: { "--config": ASKS },
  };
}

function vimSpec(): ProgramSpec {
  return {
    values: names("-T -i -r -q -t --servername"),
    flags: names("-e -E -es -b -R -M -n -N -d -o -O -p"),
    effects: {
      "-c": CODE,
      "--cmd": CODE,
      "-e": CODE,
      "-E": CODE,
      "-S": ASKS,
      "-u": ASKS,
      "-U": ASKS,
      "-s": ASKS,
      "-W": WRITES,
      "-w": WRITES,
      "--remote-send": CODE,
      "--remote-expr": CODE,
    },
    plusPlain: /^\+(\d*|\/[^|!]*)$/,
  };
}
