// Differential test of the command analysis against real shells. Each command runs under
// /bin/sh (what run_command uses; dash on Debian) and bash, with a PATH holding only probe
// programs that log their argv and a few real wrappers (env, nice, xargs, find, ...).
// Two properties must hold for every program that really ran:
// - deny side: the analysis names it in some view of some sub-command, or says `opaque`;
// - allow side: when the analysis is complete and every sub-command plain, the argv that ran
//   is exactly the words of one sub-command.
// Commands only name probes; the temp folder is the working directory.

import { join } from "node:path";
import { analyzeCommand } from "../../src/shell/split_command.ts";

const PROBES = ["rm", "git", "id", "ls", "python3", "grep", "cat", "make", "curl", "r"];
const REAL = ["env", "nice", "nohup", "stdbuf", "timeout", "setsid", "xargs", "find", "true"];

const COMMANDS = [
  "git status",
  "git status && rm x",
  "git status; rm x",
  "git status\nrm x",
  "git status | rm x",
  "! git status && rm x",
  "git status & rm x",
  "git status &> /dev/null rm x",
  "git status 'a b' \"c\" d\\ e",
  "git status -- 'a$' \"b$\" '$'",
  "git status # ; rm x",
  "git status \\# ; rm x",
  "git status a#b ; rm x",
  "GIT_X=1 git status",
  "xargs -l python3 -c'x' git status < /dev/null",
  "echo a | xargs -I{} rm {}",
  "echo a | xargs -L 1 rm",
  "echo a | xargs -l rm",
  "echo a | xargs -0 -n1 rm",
  "bash -c \"x='a[\\$(id)]'; git status \\$((x))\"",
  "x='a[$(id)]'; git status $((x))",
  "git status $(( $(id) ))",
  "git status ${x:-$(id)}",
  "sh -c -e 'rm -rf x'",
  "sh -c -- 'rm -rf x'",
  "sh -e -c 'rm x'",
  "bash -O extglob -c 'rm x'",
  "bash --norc -c 'rm x'",
  "setsid -w rm x",
  "{rm,-rf,x}",
  "r{m,} x",
  "echo a{b,c} {1..2}",
  "echo 'rm x' | sh",
  "echo 'rm x' | sh -s",
  "printf 'rm x' | bash",
  "sh <<EOF\nrm x\nEOF",
  "cat <<EOF | sh\nrm x\nEOF",
  "cat <<EOF\n$(rm x)\nEOF",
  "cat <<'EOF'\n$(rm x)\nEOF",
  "cat <<-EOF\n\t$(rm x)\n\tEOF\nid",
  "$'\\x72m' x",
  "$'rm' x",
  "git status $'\\' ; rm x ; # '",
  'git status $"x"',
  "r\\\nm x",
  "'r'm x",
  '"r"m x',
  "x=rm; $x y",
  "eval 'rm x'",
  "eval rm x",
  "command eval 'rm x'",
  "env rm x",
  "env -u X rm x",
  "env -- rm x",
  "env -S 'rm x'",
  "env A=1 rm x",
  "nice rm x",
  "nice -n 5 rm x",
  "timeout 5 rm x",
  "timeout -k 1 5 rm x",
  "stdbuf -oL rm x",
  "nohup rm x",
  "command rm x",
  "exec rm x",
  "find . -maxdepth 0 -exec rm {} +",
  "find . -maxdepth 0 -exec sh -c 'rm \"$1\"' _ {} \\;",
  "trap 'rm x' EXIT",
  "(rm x)",
  "{ rm x; }",
  "if true; then rm x; fi",
  "case a in a) rm x;; esac",
  'for f in a b; do rm "$f"; done',
  "f() { rm x; }; f",
  "git status $(rm x)",
  "git status `rm x`",
  "alias r=rm\nr x",
  "IFS=,; x=rm,y; $x",
  'set -- rm x; "$@"',
  "for c in rm; do $c x; done",
  "git status > /dev/null 2>&1",
  "git status 2>&1 | grep x",
  "timeout 5 nice -n 2 git status --short",
  "bash -euc 'git status && ls -l'",
  "git status\\\n; rm x",
  "git status ;\\\nrm x",
  "\\\nrm x",
  "git status '\\'' ; rm x",
  'git status "\\"" ; rm x',
  'git status "$(echo ")")"; rm x',
  "git status $(echo ')'); rm x",
  "git status ${x:-)}; rm x",
  'git status "${x:-"}"}"; rm x',
  "echo $(( 1 ))$(rm x)",
  "cat <<E\\OF\n$(rm x)\nEOF",
  "cat << EOF\n$(rm x)\nEOF",
  "cat <<EOF; rm x\nbody\nEOF",
  "cat <<A <<B\nx\nA\n$(rm x)\nB",
  "cat <<EOF\nEOF\nrm x",
  'cat <<"EOF"\n$(rm x)\nEOF',
  "cat <<-'EOF'\n\t$(rm x)\n\tEOF",
  "echo `echo \\`rm x\\``",
  'echo "`rm x`"',
  "echo '`rm x`'",
  "f=rm; command $f x",
  "git status </dev/null; rm x",
  "git status 2>/dev/null >&2 ; rm x",
  "git status >/dev/null& rm x",
  "time rm x",
  "! rm x",
  "[ -f x ] || rm x",
  "until rm x; do break; done",
  "rm x&&git status",
  "rm x||id",
  "rm x|id",
  "(rm x)&wait",
  "{ rm x;}",
  "x=1 y=2 rm z",
  "exec 2>/dev/null; rm x",
  "git status $[1+1]",
  'git status -- "$@"',
  "git status ~ ~root",
  "git status * ?",
  "cd bin && ./rm x",
  "rm x;#\nid",
  "echo a\\;rm x",
  "git status $'\\047' ; rm x ; # '",
  "echo $'a\\'b' ; rm x",
  "git status\r\nrm x",
  "rm\tx",
  "echo $((1 + 2))",
  'echo $(( "))" ; rm x ; (( " ))',
  "echo $((rm x) )",
  "((rm x) )",
  "echo $(( 1 + $(rm x) ))",
  "git status \\\n \t\nid",
  "<<-EOF${x:- rm x",
  "<<EOF rm x\nEOF",
  "<<'EOF'`\"|>$\" rm x",
  "env -S '<<'EOF'=\nsh -c ' rm x",
  "env '<<x=1' rm x",
  "env -S 'A=1 rm' x",
];

async function probeDir(): Promise<{ dir: string; path: string }> {
  const dir = await Deno.makeTempDir({ prefix: "harness_shell_" });
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  // One write per call, so probes running at the same time do not interleave.
  const script = `#!/bin/sh\ns="\${0##*/}"; for a in "$@"; do s="$s$(printf '\\037')$a"; done\n` +
    `printf '%s\\036' "$s" >> "$PROBE_LOG"\n`;
  for (const name of PROBES) {
    await Deno.writeTextFile(join(bin, name), script, { mode: 0o755 });
  }
  for (const name of [...REAL, "sh", "bash"]) {
    const found = ["/usr/bin", "/bin"].map((d) => join(d, name)).find((p) => exists(p));
    if (found) await Deno.symlink(found, join(bin, name));
  }
  return { dir, path: bin };
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

async function run(shell: string, command: string, dir: string, path: string, log: string) {
  await Deno.writeTextFile(log, "");
  await new Deno.Command(shell, {
    args: ["-c", `${command}\nwait`],
    cwd: dir,
    env: { PATH: path, PROBE_LOG: log },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    signal: AbortSignal.timeout(5000),
  }).output();
  const text = await Deno.readTextFile(log);
  return text.split("\x1e").filter((r) => r !== "").map((r) => r.split("\x1f"));
}

function basename(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

const SHELLS = ["/bin/sh", "/usr/bin/bash", "/bin/bash"].filter(exists);

/** Runs each command under each shell and lists where the analysis missed what ran. */
async function differences(commands: string[]): Promise<string[]> {
  const { dir, path } = await probeDir();
  const problems: string[] = [];
  const runs = [...new Set(SHELLS.map((s) => Deno.realPathSync(s)))].flatMap((shell) =>
    commands.map((command) => ({ shell, command }))
  );
  try {
    for (let i = 0; i < runs.length; i += 8) {
      const batch = runs.slice(i, i + 8).map(async ({ shell, command }, k) => ({
        shell,
        command,
        ran: await run(shell, command, dir, path, join(dir, `log_${i + k}`)),
      }));
      for (const { shell, command, ran } of await Promise.all(batch)) {
        problems.push(...compare(shell, command, ran));
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return problems;
}

function compare(shell: string, command: string, ran: string[][]): string[] {
  const problems: string[] = [];
  const analysis = analyzeCommand(command);
  const vouched = analysis.complete && analysis.commands.every((c) => c.plain);
  for (const argv of ran) {
    const program = argv[0]!;
    const named = analysis.commands.some((c) =>
      c.views.some((v) => v[0] !== undefined && basename(v[0]) === program)
    );
    if (!named && !analysis.opaque) {
      problems.push(`${shell}: ${JSON.stringify(command)} ran ${argv.join(" ")} unseen`);
    }
    const exact = analysis.commands.some((c) =>
      c.words.length === argv.length && basename(c.words[0]!) === program &&
      c.words.slice(1).every((w, i) => w === argv[i + 1])
    );
    if (vouched && !exact) {
      const words = JSON.stringify(analysis.commands.map((c) => c.words));
      problems.push(`${shell}: ${JSON.stringify(command)} vouched for ${words} but ran ${argv}`);
    }
  }
  return problems;
}

const SKIP = SHELLS.length === 0 || Deno.build.os === "windows";

Deno.test({
  name: "analyzeCommand() names every program that sh and bash really run",
  ignore: SKIP,
  async fn() {
    const problems = await differences(COMMANDS);
    if (problems.length > 0) throw new Error(problems.join("\n"));
  },
});

/** Pieces of shell syntax; joined at random they make strings the shells disagree about. */
const TOKENS = [
  "rm x",
  "git status",
  "id",
  " ",
  " ",
  ";",
  "&&",
  "|",
  "'",
  '"',
  "\\",
  "$",
  "$(",
  ")",
  "(",
  "`",
  "{",
  "}",
  ",",
  "$'",
  "${",
  "#",
  "\n",
  "<<EOF",
  "EOF",
  "<<'EOF'",
  "=",
  "x",
  "~",
  "&>",
  ">",
  "<",
  "$((",
  "))",
  "eval ",
  "sh -c ",
  "\t",
  "r",
  "m",
  "-",
  "1",
  "a[",
  "]",
  ":-",
  "\\'",
  "&",
  "!",
  "env ",
  "nice ",
  "\\\n",
  '$"',
  "<<-EOF",
  "\tEOF",
  "{r,}m",
  "$x",
  "x=rm;",
  "IFS=,;",
  "${x:-",
  "*",
  "?",
  "[",
  "exec ",
  "command ",
  "sh -c '",
  'bash -c "',
  "xargs ",
  "env -S '",
  " -c ",
  " -- ",
  "bash -s",
  "| sh",
  "-l ",
  "-I{} ",
  "{}",
];

Deno.test({
  name: "analyzeCommand() agrees with sh and bash on random strings (fixed seed)",
  ignore: SKIP,
  async fn() {
    let seed = 20261125;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const commands: string[] = [];
    for (let i = 0; i < 120; i++) {
      let command = random() < 0.5 ? "git status " : "";
      const length = 2 + Math.floor(random() * 7);
      for (let k = 0; k < length; k++) command += TOKENS[Math.floor(random() * TOKENS.length)];
      commands.push(random() < 0.5 ? `${command} rm x` : `${command}\nid`);
    }
    const problems = await differences(commands);
    if (problems.length > 0) throw new Error(problems.join("\n"));
  },
});
