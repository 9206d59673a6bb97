import { analyzeCommand, splitCommand } from "../../src/shell/split_command.ts";

function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}\nexpected ${e}\n  actual ${a}`);
}

const CASES: [string, string[][]][] = [
  ["git status", [["git", "status"]]],
  ["git status && rm -rf /", [["git", "status"], ["rm", "-rf", "/"]]],
  ["a || b; c | d |& e & f\ng", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]]],
  ["echo $(curl x | sh)", [["echo", "$(curl x | sh)"], ["curl", "x"], ["sh"]]],
  ["echo `whoami`", [["echo", "`whoami`"], ["whoami"]]],
  ['echo "$(rm -rf /)"', [["echo", "$(rm -rf /)"], ["rm", "-rf", "/"]]],
  ["(cd x && make)", [["cd", "x"], ["make"]]],
  ["sudo rm -rf /", [["rm", "-rf", "/"]]],
  ["sudo -u root -E rm x", [["rm", "x"]]],
  ["env A=1 B=2 npm test", [["npm", "test"]]],
  ["FOO=1 git push", [["git", "push"]]],
  ["timeout -s 9 5 nice -n 3 nohup make", [["make"]]],
  ["find . -name '*.o' | xargs -0 -n 1 rm", [["find", ".", "-name", "*.o"], ["rm"]]],
  ["command time git status", [["git", "status"]]],
  ["bash -c 'ls; rm -rf ~'", [["ls"], ["rm", "-rf", "~"]]],
  ['sh -lc "echo a && sudo reboot"', [["echo", "a"], ["reboot"]]],
  ["eval 'rm -rf /'", [["rm", "-rf", "/"]]],
  ["echo hi > out.txt", [["echo", "hi"], [">", "out.txt"]]],
  ["echo hi >> log 2>&1", [["echo", "hi"], [">", "log"]]],
  ["make 2> err.txt", [["make"], [">", "err.txt"]]],
  ["make &> all.txt", [["make"], [">", "all.txt"]]],
  ["ls > /dev/null 2>&1", [["ls"]]],
  ["wc -l < input.txt", [["wc", "-l"]]],
  ["diff <(ls a) <(ls b)", [["diff", "<(ls a)", "<(ls b)"], ["ls", "a"], ["ls", "b"]]],
  ['for f in *; do rm "$f"; done', [["for", "f", "in", "*"], ["rm", "$f"]]],
  ["if true; then rm x; fi", [["true"], ["rm", "x"]]],
  ["{ rm x; }", [["rm", "x"]]],
  ["echo 'a && b' \"c; d\" e\\ f", [["echo", "a && b", "c; d", "e f"]]],
  ["git status # && rm -rf /", [["git", "status"]]],
  ["echo $((1 + 2))", [["echo", "$((1 + 2))"]]],
  ["find . -name x -exec rm -f {} \\; -print", [[
    "find",
    ".",
    "-name",
    "x",
    "-exec",
    "rm",
    "-f",
    "{}",
    ";",
    "-print",
  ], ["rm", "-f", "{}"]]],
  ["", []],
];

for (const [command, expected] of CASES) {
  Deno.test(`splitCommand() splits ${JSON.stringify(command)}`, () => {
    assertEquals(splitCommand(command), expected, command);
  });
}

Deno.test("analyzeCommand() keeps the wrapped views outermost first", () => {
  const [sub] = analyzeCommand("sudo timeout 5 rm x").commands;
  assertEquals(sub?.views, [["sudo", "timeout", "5", "rm", "x"], ["timeout", "5", "rm", "x"], [
    "rm",
    "x",
  ]]);
});

Deno.test("analyzeCommand() marks what it cannot analyse as incomplete", () => {
  for (
    const command of [
      "r${IFS}m -rf /",
      "$cmd x",
      "echo 'open",
      "cat <<EOF\nx\nEOF",
      "echo ${X:-$(rm x)}",
      "echo $(ls",
    ]
  ) {
    if (analyzeCommand(command).complete) throw new Error(`complete: ${command}`);
  }
  if (!analyzeCommand("git status && ls | wc -l").complete) throw new Error("incomplete");
});

Deno.test("analyzeCommand() stops at deep nesting instead of recursing forever", () => {
  let command = "rm x";
  for (let i = 0; i < 20; i++) command = `bash -c ${JSON.stringify(command)}`;
  const analysis = analyzeCommand(command);
  if (analysis.complete) throw new Error("deep nesting should be incomplete");
});

const MORE_CASES: [string, string[][]][] = [
  ["{rm,-rf,x}", [["rm", "-rf", "x"]]],
  ["echo a{b,c}d '{e,f}' {1..3} {x}", [["echo", "abd", "acd", "{e,f}", "1", "2", "3", "{x}"]]],
  // Read as bash does (ANSI-C) and as dash does (`$` then a quoted string).
  ["$'\\x72\\x6d' $'a\\tb' $\"c\"", [["rm", "a\tb", "c"], ["$\\x72\\x6d", "$a\\tb", "$c"]]],
  ["sh -c -e 'rm x'", [["rm", "x"]]],
  ["bash -O extglob -c 'rm x'", [["rm", "x"]]],
  ["setsid -f rm x", [["rm", "x"]]],
  ["xargs -l python3 -c 'x' git status", [["python3", "-c", "x", "git", "status"]]],
  ["xargs -L 1 -0 rm", [["rm"]]],
  ["cat <<'EOF' > f\nrm x\nEOF\nls", [["cat"], [">", "f"], ["ls"]]],
  ["cat <<EOF\n$(id)\nEOF", [["cat"], ["id"]]],
  ["cat <<-EOF\n\tx\n\tEOF\nls", [["cat"], ["ls"]]],
  ["echo hi > build/../out.txt", [["echo", "hi"], [">", "out.txt"]]],
  ["trap 'rm x' EXIT", [["trap", "rm x", "EXIT"], ["rm", "x"]]],
];

for (const [command, expected] of MORE_CASES) {
  Deno.test(`splitCommand() reads ${JSON.stringify(command)}`, () => {
    assertEquals(splitCommand(command), expected, command);
  });
}

Deno.test("analyzeCommand() marks only plain commands as plain", () => {
  const plain = [
    "git status",
    "git status 'a b' \"c\" d\\ e $'f'",
    "timeout -s KILL 5 nice -n 2 nohup git status",
    "env git status",
    "bash -euc 'git status'",
    "find . -name x -exec grep y \\;",
  ];
  const notPlain = [
    "A=1 git status",
    "env A=1 git status",
    "env -u A git status",
    "sudo git status",
    "xargs git status",
    "git status $X",
    "git status *.ts",
    "git status {a,b}",
    "git status ~/x",
    "timeout --weird 5 git status",
    "time -o out git status",
    "bash -i -c 'git status'",
    "find . -fprint out",
    "find . -exec grep y {} +",
  ];
  for (const command of plain) {
    const a = analyzeCommand(command);
    if (!a.commands.every((c) => c.plain)) throw new Error(`not plain: ${command}`);
  }
  for (const command of notPlain) {
    const a = analyzeCommand(command);
    if (a.commands.every((c) => c.plain)) throw new Error(`plain: ${command}`);
  }
});

Deno.test("analyzeCommand() marks a command that may run an unseen program as opaque", () => {
  const opaque = [
    "$X a",
    "echo x | sh",
    "bash -s",
    "sh /dev/stdin",
    "source <(curl x)",
    'eval "$X"',
    "echo $((x + 1))",
    "((x))",
    "let x",
    "echo ${a[i]} ",
    "echo ${!name}",
    "a[i]=1",
    "/bin/r? x",
    "git --exec-path=./bin status",
  ];
  const seen = [
    "git status",
    "echo $((1 + 2)) ${HOME:-x} ${#x} $@",
    "bash script.sh",
    "cat <<'EOF'\n$((x))\nEOF",
    "~/bin/tool",
  ];
  for (const command of opaque) {
    if (!analyzeCommand(command).opaque) throw new Error(`not opaque: ${command}`);
  }
  for (const command of seen) {
    if (analyzeCommand(command).opaque) throw new Error(`opaque: ${command}`);
  }
});

Deno.test("analyzeCommand() takes every later word of an unknown wrapper option as a command", () => {
  const [sub] = analyzeCommand("sudo --weird a rm x").commands;
  if (!sub?.views.some((v) => v.join(" ") === "rm x")) throw new Error(JSON.stringify(sub));
  if (sub.plain) throw new Error("plain");
});
