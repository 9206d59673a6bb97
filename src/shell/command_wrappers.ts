// What the analyser knows about programs that run other programs: shells and their options,
// and wrappers (sudo, env, timeout, xargs, ...) with their option tables. Options of other
// programs are in program_options.ts. Pure data and option parsing; used by
// unwrap_command.ts.

import { resolveLongOption } from "./option_reader.ts";

/** Shells whose `-c` script, stdin or script file is what they run. */
export const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "ash", "fish", "mksh", "yash"]);

/** How a wrapper program's own options and operands are laid out. */
export interface Wrapper {
  /** Options whose value is the next word unless attached (`-n5`, `--user=bob`). */
  values?: readonly string[];
  /** Options without a value (optional values are attached only, as in `xargs -l`). */
  flags?: readonly string[];
  /** Options after which an allow rule may still see through the wrapper. */
  plainOptions?: readonly string[];
  /** `nice -5`: an option that is only digits. */
  numeric?: boolean;
  /** Words before the command that are not options (timeout's duration). */
  operands?: number;
  /** It runs the command unchanged, so an allow rule may look through it. */
  transparent?: boolean;
  /** No option table: every later word may start the command (deny rules only). */
  unknown?: boolean;
  /** Its command words are joined and run by a shell (`ssh host cmd`, `su -c cmd`). */
  joinsShell?: boolean;
}

const SPECLESS: Wrapper = { unknown: true };
const SPECLESS_SHELL: Wrapper = { unknown: true, joinsShell: true };

/** Programs that run the command given in their later words, by basename. */
export const WRAPPERS: Record<string, Wrapper> = {
  timeout: {
    values: ["-s", "--signal", "-k", "--kill-after"],
    flags: ["--preserve-status", "--foreground", "-v", "--verbose"],
    plainOptions: ["-s", "--signal", "-k", "--kill-after", "--preserve-status", "--foreground"],
    operands: 1,
    transparent: true,
  },
  nice: {
    values: ["-n", "--adjustment"],
    plainOptions: ["-n", "--adjustment"],
    numeric: true,
    transparent: true,
  },
  nohup: { transparent: true },
  stdbuf: {
    values: ["-i", "-o", "-e", "--input", "--output", "--error"],
    plainOptions: ["-i", "-o", "-e", "--input", "--output", "--error"],
    transparent: true,
  },
  time: {
    values: ["-f", "--format", "-o", "--output"],
    flags: ["-p", "--portability", "-a", "--append", "-v", "--verbose", "-q", "--quiet"],
    plainOptions: ["-p", "--portability"],
    transparent: true,
  },
  command: { flags: ["-p", "-v", "-V"], transparent: true },
  builtin: { transparent: true },
  exec: { values: ["-a"], flags: ["-c", "-l"], transparent: true },
  setsid: {
    flags: ["-c", "--ctty", "-f", "--fork", "-w", "--wait"],
    plainOptions: ["-c", "--ctty", "-f", "--fork", "-w", "--wait"],
    transparent: true,
  },
  ionice: {
    values: ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"],
    flags: ["-t", "--ignore"],
    plainOptions: ["-c", "--class", "-n", "--classdata", "-t", "--ignore"],
    transparent: true,
  },
  // env is transparent only bare: options and NAME=value words change what runs.
  env: {
    values: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P", "--path"],
    flags: [
      "-i",
      "--ignore-environment",
      "-0",
      "--null",
      "-v",
      "--debug",
      "--default-signal",
      "--ignore-signal",
      "--block-signal",
      "--list-signal-handling",
    ],
    transparent: true,
  },
  sudo: {
    values: [
      "-u",
      "--user",
      "-g",
      "--group",
      "-C",
      "--close-from",
      "-D",
      "--chdir",
      "-h",
      "--host",
      "-p",
      "--prompt",
      "-r",
      "--role",
      "-t",
      "--type",
      "-U",
      "--other-user",
      "-T",
      "--command-timeout",
    ],
    flags: [
      "-A",
      "--askpass",
      "-b",
      "--background",
      "-E",
      "--preserve-env",
      "-H",
      "--set-home",
      "-i",
      "--login",
      "-k",
      "--reset-timestamp",
      "-n",
      "--non-interactive",
      "-P",
      "--preserve-groups",
      "-S",
      "--stdin",
      "-s",
      "--shell",
    ],
    joinsShell: true,
  },
  doas: { values: ["-u", "-C"], flags: ["-n", "-s", "-L"] },
  xargs: {
    values: [
      "-a",
      "--arg-file",
      "-d",
      "--delimiter",
      "-E",
      "-I",
      "-L",
      "-n",
      "--max-args",
      "-P",
      "--max-procs",
      "-s",
      "--max-chars",
      "--process-slot-var",
    ],
    // -e, -i and -l take an optional value, which can only be attached (`-l5`).
    flags: [
      "-0",
      "--null",
      "-o",
      "--open-tty",
      "-p",
      "--interactive",
      "-r",
      "--no-run-if-empty",
      "-t",
      "--verbose",
      "-x",
      "--exit",
      "-e",
      "--eof",
      "-i",
      "--replace",
      "-l",
      "--max-lines",
      "--show-limits",
    ],
  },
  busybox: {},
  toybox: {},
  coproc: SPECLESS, // `coproc NAME { cmd; }` or `coproc cmd`
  chroot: SPECLESS,
  unshare: SPECLESS,
  nsenter: SPECLESS,
  firejail: SPECLESS,
  bwrap: SPECLESS,
  strace: SPECLESS,
  ltrace: SPECLESS,
  valgrind: SPECLESS,
  fakeroot: SPECLESS,
  eatmydata: SPECLESS,
  unbuffer: SPECLESS,
  "xvfb-run": SPECLESS,
  proxychains: SPECLESS,
  proxychains4: SPECLESS,
  torsocks: SPECLESS,
  faketime: SPECLESS,
  prlimit: SPECLESS,
  chronic: SPECLESS,
  taskset: SPECLESS,
  chrt: SPECLESS,
  numactl: SPECLESS,
  "systemd-run": SPECLESS,
  catchsegv: SPECLESS,
  ifne: SPECLESS,
  "dbus-run-session": SPECLESS,
  pkexec: SPECLESS,
  gosu: SPECLESS,
  "su-exec": SPECLESS,
  setpriv: SPECLESS,
  cgexec: SPECLESS,
  sshpass: SPECLESS,
  nocache: SPECLESS,
  timelimit: SPECLESS,
  daemonize: SPECLESS,
  flock: SPECLESS_SHELL,
  su: SPECLESS_SHELL,
  runuser: SPECLESS_SHELL,
  sg: SPECLESS_SHELL,
  ssh: SPECLESS_SHELL,
  watch: SPECLESS_SHELL,
  script: SPECLESS_SHELL,
  parallel: SPECLESS_SHELL,
  sem: SPECLESS_SHELL,
  "nix-shell": SPECLESS_SHELL,
  capsh: SPECLESS_SHELL,
  tmux: SPECLESS_SHELL,
  screen: SPECLESS_SHELL,
};

/** How a shell gets its commands: a `-c` script, a script file at `index`, or stdin. */
export type ShellCall =
  | { kind: "script"; script: string; plain: boolean }
  | { kind: "file"; index: number }
  | { kind: "stdin" };

/** Options that keep `bash -c` as plain as its script (`-e`, `-u`, `-o pipefail`, ...). */
const PLAIN_SHELL_LETTERS = /^[-+][ceuxlo]+$/;
const PLAIN_SET_OPTIONS = new Set(["pipefail", "errexit", "nounset", "xtrace", "noglob"]);

/**
 * How a shell is started: with `-c` (anywhere among its options) the first operand is the
 * script; else the first operand is a script file; else it reads commands from stdin.
 */
export function shellCall(words: string[], at: number): ShellCall {
  let sawC = false;
  let stdin = false;
  let plain = true;
  let i = at + 1;
  while (i < words.length) {
    const w = words[i]!;
    if (w === "--" || w === "-") {
      if (w === "-") stdin = true;
      i++;
      break;
    }
    if (w.startsWith("--")) {
      if (w === "--rcfile" || w === "--init-file") i++;
      if (!/^--(norc|noprofile|login|posix|noediting)$/.test(w)) plain = false;
      i++;
      continue;
    }
    if (!/^[-+]./.test(w)) break;
    if (!PLAIN_SHELL_LETTERS.test(w)) plain = false;
    for (const letter of w.slice(1)) {
      if (letter === "c") sawC = true;
      else if (letter === "s") stdin = true;
      else if (letter === "o" || letter === "O") {
        i++;
        if (letter === "O" || !PLAIN_SET_OPTIONS.has(words[i] ?? "")) plain = false;
      }
    }
    i++;
  }
  if (sawC) return { kind: "script", script: words[i] ?? "", plain };
  if (stdin || i >= words.length) return { kind: "stdin" };
  return { kind: "file", index: i };
}

/** Where a wrapper's command starts, and what its options were like. */
export interface ParsedOptions {
  /** Index of the first word after the wrapper's options and operands. */
  next: number;
  /** Index of the first option the table does not know. */
  unknownAt?: number;
  /** Whether every option given keeps the wrapper transparent. */
  plain: boolean;
  /** `env -S VALUE`. */
  split?: string;
}

/**
 * Parses a wrapper's options and operands from `from`: exact with a table, and stopping at
 * the first option the table does not know (`unknownAt`).
 */
export function parseWrapperOptions(
  wrapper: Wrapper,
  words: string[],
  from: number,
): ParsedOptions {
  if (wrapper.unknown) return { next: from, unknownAt: from, plain: false };
  const values = new Set(wrapper.values ?? []);
  const flags = new Set(wrapper.flags ?? []);
  const plainOptions = new Set(wrapper.plainOptions ?? []);
  const long = [...values, ...flags].filter((option) => option.startsWith("--"));
  let plain = true;
  let split: string | undefined;
  let i = from;
  const unknown = (at: number): ParsedOptions => ({ next: at, unknownAt: at, plain: false });
  while (i < words.length) {
    const w = words[i]!;
    if (w === "--") {
      i++;
      break;
    }
    if (!w.startsWith("-") || w === "-") break;
    if (wrapper.numeric && /^-\d+$/.test(w)) {
      i++;
      continue;
    }
    if (w.startsWith("--")) {
      const eq = w.indexOf("=");
      // GNU tools take any unique prefix: `env --split=CMD` is `env --split-string=CMD`.
      const meant = resolveLongOption(eq < 0 ? w : w.slice(0, eq), long);
      if (meant.length !== 1) return unknown(i);
      const option = meant[0]!;
      if (!plainOptions.has(option)) plain = false;
      const value = eq >= 0 ? w.slice(eq + 1) : values.has(option) ? words[++i] : undefined;
      if (option === "--split-string") split = value ?? "";
      i++;
      continue;
    }
    // Short options, possibly bundled (`-0r`) or with an attached value (`-oL`, `-n5`).
    for (let k = 1; k < w.length; k++) {
      const option = `-${w[k]}`;
      if (values.has(option)) {
        if (!plainOptions.has(option)) plain = false;
        const value = k + 1 < w.length ? w.slice(k + 1) : words[++i];
        if (option === "-S") split = value ?? "";
        break;
      }
      if (!flags.has(option)) return unknown(i);
      if (!plainOptions.has(option)) plain = false;
    }
    i++;
  }
  i += wrapper.operands ?? 0;
  return { next: Math.min(i, words.length), plain, ...(split === undefined ? {} : { split }) };
}
