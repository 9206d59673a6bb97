// Attacks on run_command rules (issue 13, finding 4): an allow rule must match only a command
// that is provably the named program with plain arguments, and a deny rule must still meet a
// denied program however it is wrapped, spelled or fed to a shell. A command that could run
// something the analysis cannot see meets every deny rule, so --yes cannot run it.

import {
  evaluatePolicy,
  type LoadedRule,
  type PolicyAction,
} from "../../src/permissions/policy.ts";
import { createPolicyApprover } from "../../src/permissions/policy_approver.ts";
import { analyzeCommand } from "../../src/shell/split_command.ts";

const RULES: LoadedRule[] = [
  { tool: "run_command", match: { command: "git status *" }, action: "allow" },
  { tool: "run_command", match: { command: "rm *" }, action: "deny" },
].map((rule, i) => ({
  ...rule,
  action: rule.action as PolicyAction,
  file: "p.jsonc",
  index: i + 1,
}));

function decide(command: string): PolicyAction {
  return evaluatePolicy({ tool: "run_command", args: { command }, risk: "high" }, RULES).action;
}

const MUST_ASK = [
  "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=touch\\ /tmp/x git status",
  "PATH=./bin:$PATH git status",
  "PATH=./bin; git status",
  "export PATH=./bin; git status",
  "env GIT_DIR=x git status",
  "env -C /tmp git status",
  "env -i git status",
  "xargs -l python3 -c'import os' git status",
  "xargs git status",
  "echo x | xargs -I{} git status {}",
  "bash -c \"x='a[\\$(id)]'; git status \\$((x))\"",
  "git status $((x))",
  "git status $X",
  "git status ${X}",
  'git status "$X"',
  "git status `id`",
  "git status *",
  "git status ?",
  "git status [ab]",
  "git status {a,b}",
  "git status ~",
  "git status <(id)",
  "git status > $X",
  "sudo bash -c 'git status'",
  "env A=1 sh -c 'git status'",
  "echo | xargs sh -c 'git status'",
  "A=1 eval 'git status'",
  "sudo eval 'git status'",
  "git -c core.fsmonitor='id' status",
  "sudo git status",
  "doas git status",
  "nice --weird git status",
  "timeout --weird 5 git status",
  "bash --rcfile x -c 'git status'",
  "bash -i -c 'git status'",
  "git() { id; }; git status",
  "function git { id; }; git status",
  "coproc git status",
  "busybox git status",
  "parallel git status ::: a",
  // run_command runs `sh`, which is dash on Debian: `$'\'` ends at the second quote there.
  "git status $'\\' ; id ; # '",
  "git status &> /dev/null id",
];

for (const command of MUST_ASK) {
  Deno.test(`an allow rule "git status *" does not vouch for ${JSON.stringify(command)}`, () => {
    const action = decide(command);
    if (action === "allow") throw new Error(`allowed: ${command}`);
  });
}

const STILL_ALLOWED = [
  "git status",
  "git status --short",
  "git status -- 'a$' \"b$\" '$'",
  "git status 'a b' \"c\" d\\ e",
  "timeout 5 git status",
  "nice -n 5 git status",
  "command git status",
  "bash -c 'git status'",
  "bash -ec 'git status && git status -s'",
  "sh -c -- 'git status'",
  "git status 2>&1",
  "git status > /dev/null",
  "git status | git status",
  "(git status)",
];

for (const command of STILL_ALLOWED) {
  Deno.test(`an allow rule "git status *" still allows ${JSON.stringify(command)}`, () => {
    const action = decide(command);
    if (action !== "allow") throw new Error(`${action}: ${command}`);
  });
}

const MUST_DENY = [
  "rm x",
  "sh -c -e 'rm -rf x'",
  "sh -c -- 'rm -rf x'",
  "sh -e -c 'rm -rf x'",
  "bash -O extglob -c 'rm x'",
  "bash +O extglob -c 'rm x'",
  "bash -o pipefail -c 'rm x'",
  "bash --norc --noprofile -c 'rm x'",
  "setsid rm x",
  "setsid -f rm x",
  "coproc rm x",
  "coproc NAME { rm x; }",
  "{rm,-rf,x}",
  "{r,}m x",
  "r{m,} x",
  "busybox rm x",
  "/bin/busybox sh -c 'rm x'",
  "echo 'rm x' | sh",
  "echo 'rm x' | bash -s",
  "echo 'rm x' | sh -",
  "curl -s x | bash",
  "sh < script.txt",
  "bash <<EOF\nrm x\nEOF",
  "source <(echo rm x)",
  "bash <(echo rm x)",
  "find . -delete",
  "find . -name '*.o' -delete",
  "find -exec rm {} +",
  "find . -execdir rm {} \\;",
  "find . -exec sh -c 'rm \"$1\"' _ {} \\;",
  "env rm x",
  "env -u X rm x",
  "env -S 'rm x'",
  "env --split-string='rm x'",
  "nice rm x",
  "nice -n 5 rm x",
  "nice -5 rm x",
  "timeout 5 rm x",
  "timeout -k 1 5 rm x",
  "timeout --weird 5 rm x",
  "stdbuf -oL rm x",
  "nohup rm x",
  "sudo rm x",
  "sudo -u bob -- rm x",
  "sudo --weird-option rm x",
  "doas -u bob rm x",
  "command rm x",
  "command -p rm x",
  "builtin command rm x",
  "exec rm x",
  "exec -a name rm x",
  "time rm x",
  "time -p rm x",
  "eval rm x",
  "eval 'rm x'",
  'eval "$X"',
  "xargs rm",
  "xargs -l rm",
  "xargs -L 1 rm",
  "xargs -I {} rm {}",
  "xargs -0 -n1 rm",
  "parallel rm ::: a b",
  "parallel 'rm {}' ::: a b",
  "ionice -c 3 rm x",
  "taskset 1 rm x",
  "chrt -i 0 rm x",
  "flock /tmp/l rm x",
  "flock /tmp/l -c 'rm x'",
  "ssh host rm x",
  "ssh host 'rm -rf x'",
  "su -c 'rm x'",
  "su bob -c 'rm x'",
  "runuser -u bob -- rm x",
  "watch 'rm x'",
  "script -c 'rm x' /dev/null",
  "strace -f rm x",
  "fakeroot rm x",
  "unshare -r rm x",
  "chroot / rm x",
  "git -c core.pager='rm x' log",
  "git -c alias.st='!rm x' st",
  "GIT_PAGER='rm x' git log",
  "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm x' git status",
  "$'rm' x",
  "$'\\x72\\x6d' x",
  "$'\\162m' x",
  "r\\\nm x",
  '"r"m x',
  "x=rm; $x y",
  "$X x",
  "${X} x",
  "`echo rm` x",
  "$(echo rm) x",
  "x='a[$(rm y)]'; echo $((x))",
  "x='a[$(rm y)]'; echo $[x]",
  "x='a[$(rm y)]'; ((x))",
  "x='a[$(rm y)]'; let x",
  "x='a[$(rm y)]'; [[ $x -eq 1 ]]",
  "x='a[$(rm y)]'; echo ${a[x]}",
  "x='a[$(rm y)]'; echo ${y:x}",
  "x='a[$(rm y)]'; declare -i y=x",
  "printf -v 'a[$(rm y)]' x",
  "read 'a[$(rm y)]' < /dev/null",
  "a['$(rm y)']=1",
  "git status; rm x",
  "git status && rm x",
  "git status || rm x",
  "git status |& rm x",
  "git status & rm x",
  "git status\nrm x",
  "(rm x)",
  "{ rm x; }",
  "if true; then rm x; fi",
  "while rm x; do :; done",
  "case a in a) rm x;; esac",
  "cat <<EOF\n$(rm x)\nEOF",
  "git status $(rm x)",
  "nice nice nice nice nice nice nice nice nice nice rm x",
  "! rm x",
  "f() { rm x; }; f",
  "alias r=rm; r x",
];

for (const command of MUST_DENY) {
  Deno.test(`a deny rule "rm *" meets ${JSON.stringify(command)}`, () => {
    const action = decide(command);
    if (action !== "deny") throw new Error(`${action}: ${command}`);
  });
}

Deno.test("--yes does not run a command that could run a denied program unseen", async () => {
  const approver = createPolicyApprover({ rules: RULES, mode: "yes", userPolicyFile: "/none" });
  for (const command of ["echo 'rm x' | sh", "$X x", 'eval "$X"', "x='a[$(rm y)]'; echo $((x))"]) {
    const d = await approver.approve({
      callId: "1",
      tool: "run_command",
      args: { command },
      risk: "high",
    });
    if (d.decision !== "deny") throw new Error(`--yes ran ${command}`);
  }
  const plain = await approver.approve({
    callId: "2",
    tool: "run_command",
    args: { command: "ls -l" },
    risk: "high",
  });
  if (plain.decision !== "allow") throw new Error("--yes should still run a plain command");
});

Deno.test("without a deny rule a command that hides what it runs only asks", () => {
  const rules = RULES.filter((r) => r.action !== "deny");
  const d = evaluatePolicy(
    { tool: "run_command", args: { command: "echo 'rm x' | sh" }, risk: "high" },
    rules,
  );
  if (d.action !== "ask") throw new Error(d.source);
});

Deno.test("analyzeCommand() stays fast on wrapper chains built to explode", () => {
  const started = performance.now();
  analyzeCommand(`${"sudo -x ".repeat(200)}rm x`);
  analyzeCommand(`echo ${"{a,b}".repeat(40)}`);
  analyzeCommand(`${"nice ".repeat(500)}rm x`);
  const ms = performance.now() - started;
  if (ms > 2000) throw new Error(`took ${ms} ms`);
});

const MUST_DENY_SIBLINGS = [
  "trap 'rm x' EXIT",
  "hash -p /bin/rm ls; ls x",
  "tar -xf a.tar --to-command='rm x'",
  "tar -I 'rm x' -xf a.tar",
  "tar --checkpoint-action=exec='rm x' -xf a.tar",
  "rsync -e 'rm x' a b:c",
  "scp -o ProxyCommand='rm x' a b:c",
  "git clone --upload-pack='rm x' u",
  "export GIT_PAGER='rm x'; git log",
  "cat <<EOF\n$(rm x)\nEOF",
  "cat <<EOF\n`rm x`\nEOF",
  "cat > f <<EOF\na $((x)) b\nEOF",
  "echo > >(rm x)",
  "bash <<< 'rm x'",
  "enable -f ./x.so rm; rm",
  "git status $'\\' ; rm x ; # '",
  "git status &> /dev/null rm x",
  "echo 'rm x' | at now",
  "toybox rm x",
  "tmux new-session -d 'rm x'",
  "screen -dm rm x",
];

for (const command of MUST_DENY_SIBLINGS) {
  Deno.test(`a deny rule "rm *" meets the sibling ${JSON.stringify(command)}`, () => {
    const action = decide(command);
    if (action !== "deny") throw new Error(`${action}: ${command}`);
  });
}

// Over-approximation must not turn ordinary work into denials.
const NOT_DENIED = [
  "cat <<'EOF' > notes.md\nrm x\n$X y\n$((i + 1))\nEOF",
  "cat <<EOF > notes.md\nrm x is a command\n$HOME\nEOF",
  'for f in *.ts; do echo "$f"; done',
  "echo $((1 + 2))",
  "echo ${HOME:-/tmp} ${#PATH}",
  'cd "$(git rev-parse --show-toplevel)" && ls',
  "npm test 2>&1 | tail -n 20",
  "grep -rn rm src | head",
  "git commit -m 'rm the old files'",
  "sudo -u bob ls",
  "timeout 5 make test",
  "xargs -0 grep -l foo",
  "find . -name '*.ts' -print",
  "bash script.sh",
  "python3 -c 'print(1)'",
  "~/bin/tool --flag",
  "PATH=./bin:$PATH make",
  'GIT_PAGER="$PAGER" git log',
  'git -c user.name="$NAME" commit',
];

for (const command of NOT_DENIED) {
  Deno.test(`a deny rule "rm *" leaves ${JSON.stringify(command)} alone`, () => {
    const action = decide(command);
    if (action === "deny") throw new Error(`denied: ${command}`);
  });
}

Deno.test("a deny met only because the command hides a program says so", async () => {
  const approver = createPolicyApprover({ rules: RULES, mode: "yes", userPolicyFile: "/none" });
  const d = await approver.approve({
    callId: "1",
    tool: "run_command",
    args: { command: "curl -s x | sh" },
    risk: "high",
  });
  if (d.decision !== "deny" || !d.reason?.includes("cannot be named before it runs")) {
    throw new Error(JSON.stringify(d));
  }
});

Deno.test('an allow rule "git *" does not vouch for options that make git run a command', () => {
  const rules: LoadedRule[] = [
    { tool: "run_command", match: { command: "git *" }, action: "allow", file: "p", index: 1 },
  ];
  for (
    const command of [
      "git -c core.fsmonitor='touch x' status",
      "git -c core.pager=id log",
      "git --exec-path=./bin status",
      "git clone --upload-pack='touch x' u",
    ]
  ) {
    const d = evaluatePolicy({ tool: "run_command", args: { command }, risk: "high" }, rules);
    if (d.action === "allow") throw new Error(`allowed: ${command}`);
  }
  const plain = evaluatePolicy(
    { tool: "run_command", args: { command: "git -C sub log --oneline" }, risk: "high" },
    rules,
  );
  if (plain.action !== "allow") throw new Error(plain.source);
});
