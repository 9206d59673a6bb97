import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { emptyGrants, formatGrants } from "../../src/sandbox/grants/grants.ts";
import { HARNESS_ARGUMENTS, parseGrantFlags } from "../../src/cli/grant_flags.ts";
import type { Grant, PermissionName } from "../../src/sandbox/grants/permission_name.ts";

const cwd = "/w";

function parse(argv: string[]) {
  const r = parseGrantFlags(argv, { cwd });
  if (!r.ok) throw new Error(`unexpected error for ${argv.join(" ")}`);
  return r.value;
}

Deno.test("parseGrantFlags() reads Deno's permission flag forms", () => {
  const all: Record<PermissionName, Grant> = {
    read: true,
    write: true,
    net: true,
    run: true,
    env: true,
    sys: true,
    ffi: true,
  };
  const table: [string[], Partial<Record<PermissionName, Grant>>][] = [
    [[], {}],
    [["-A"], all],
    [["--allow-all"], all],
    [["-R"], { read: true }],
    [["-W", "-N", "-E", "-S"], { write: true, net: true, env: true, sys: true }],
    [["-RW"], { read: true, write: true }],
    [["-R=src"], { read: ["/w/src"] }],
    [["--allow-read"], { read: true }],
    [["--allow-read=a,b"], { read: ["/w/a", "/w/b"] }],
    [["--allow-read=a", "--allow-read=/abs"], { read: ["/w/a", "/abs"] }],
    [["--allow-read=a", "--allow-read"], { read: true }],
    [["--allow-write=out"], { write: ["/w/out"] }],
    [["--allow-net=example.com:443,localhost"], { net: ["example.com:443", "localhost"] }],
    [["--allow-run=git,./bin/tool"], { run: ["git", "/w/bin/tool"] }],
    [["--allow-env=HOME,PATH"], { env: ["HOME", "PATH"] }],
    [["--allow-sys=hostname"], { sys: ["hostname"] }],
    [["--allow-ffi=lib.so"], { ffi: ["/w/lib.so"] }],
    [["-N=example.com"], { net: ["example.com"] }],
  ];
  for (const [argv, allow] of table) {
    const { grants, rest } = parse(argv);
    assertEquals(grants.allow, { ...emptyGrants().allow, ...allow }, argv.join(" "));
    assertEquals(rest, [], argv.join(" "));
  }
});

Deno.test("parseGrantFlags() records --deny-* flags", () => {
  const { grants } = parse(["-A", "--deny-write=x", "--deny-net", "--deny-env=SECRET"]);
  assertEquals(grants.deny, { ...emptyGrants().deny, write: ["/w/x"], net: true, env: ["SECRET"] });
  assertEquals(grants.allow.write, true);
});

Deno.test("parseGrantFlags() leaves other arguments in order", () => {
  const { grants, rest } = parse([
    "-p",
    "hello",
    "--allow-foo",
    "-R",
    "--model",
    "m",
    "-y",
    "--",
    "--allow-read",
  ]);
  assertEquals(rest, ["-p", "hello", "--allow-foo", "--model", "m", "-y", "--", "--allow-read"]);
  assertEquals(grants.allow.read, true);
  assertEquals(grants.allow.write, []);
});

Deno.test("parseGrantFlags() splits Deno's letters out of groups with harness's booleans", () => {
  const table: [string[], Partial<Record<PermissionName, Grant>>, string[]][] = [
    [["-yR"], { read: true }, ["-y"]],
    [["-Ryc"], { read: true }, ["-yc"]],
    [["-yRW", "-p", "x"], { read: true, write: true }, ["-y", "-p", "x"]],
    [["-yNp", "hi"], { net: true }, ["-yp", "hi"]],
    [["-Rphi"], { read: true }, ["-phi"]],
    [["-Rx"], { read: true }, ["-x"]],
    // -p takes the rest of its group as its value: "-pR" is the prompt "R".
    [["-pR"], {}, ["-pR"]],
    [["-yp", "R"], {}, ["-yp", "R"]],
    [["-xR"], {}, ["-xR"]],
    [["--resume", "-R", "abc"], { read: true }, ["--resume", "abc"]],
  ];
  for (const [argv, allow, expectedRest] of table) {
    const { grants, rest } = parse(argv);
    assertEquals(grants.allow, { ...emptyGrants().allow, ...allow }, argv.join(" "));
    assertEquals(rest, expectedRest, argv.join(" "));
  }
});

Deno.test("parseGrantFlags() keeps subcommand words after a valueless flag", () => {
  const table: [string[], string[]][] = [
    [["--allow-read", "tool", "ls", "{}"], ["tool", "ls", "{}"]],
    [["-R", "sessions", "list"], ["sessions", "list"]],
    [["-N", "policy", "explain", "download_url", "{}"], [
      "policy",
      "explain",
      "download_url",
      "{}",
    ]],
    [["--allow-write", "plugin", "new", "x"], ["plugin", "new", "x"]],
    [["tool", "-R", "ls"], ["tool", "ls"]],
    [["sessions", "search", "-R", "needle"], ["sessions", "search", "needle"]],
    [["tool", "ls", "-R", '{"path": "."}'], ["tool", "ls", '{"path": "."}']],
    // Several words after the flag read as a prompt missing -p; the CLI parser explains that.
    [["-R", "fix", "the", "tests"], ["fix", "the", "tests"]],
    // Not shaped like the permission's value: left for the CLI parser.
    [["--allow-env", "a b"], ["a b"]],
    [["--allow-net", "http://x/"], ["http://x/"]],
  ];
  for (const [argv, expectedRest] of table) {
    assertEquals(parse(argv).rest, expectedRest, argv.join(" "));
  }
});

Deno.test("parseGrantFlags() refuses mistakes with a usage error", () => {
  const spaced = (arg: string, flag: string) =>
    `Unexpected argument "${arg}" after ${flag}: a permission flag takes its list after "=", ` +
    `so write ${flag}=${arg}`;
  const table: [string[], string][] = [
    [["--allow-read", "."], spaced(".", "--allow-read")],
    [["--allow-net", "example.com", "-p", "x"], spaced("example.com", "--allow-net")],
    [["-N", "localhost:8080,[::1]"], spaced("localhost:8080,[::1]", "-N")],
    [["--allow-write", "out/dir"], spaced("out/dir", "--allow-write")],
    [["--deny-read", ".env", "-y"], spaced(".env", "--deny-read")],
    [["--allow-env", "HOME,AWS_*"], spaced("HOME,AWS_*", "--allow-env")],
    [["--allow-run", "git"], spaced("git", "--allow-run")],
    [["--allow-sys", "hostname"], spaced("hostname", "--allow-sys")],
    [["--allow-ffi", "lib.so"], spaced("lib.so", "--allow-ffi")],
    [["-p", "hi", "-R", "src"], spaced("src", "-R")],
    [["-yR", "."], spaced(".", "-R")],
    [
      ["-A=foo"],
      "Invalid use of -A: it takes no value because it allows everything; to allow less, " +
      "write a flag such as --allow-read=foo",
    ],
    [
      ["--allow-all=x"],
      "Invalid use of --allow-all: it takes no value because it allows everything; to allow " +
      "less, write a flag such as --allow-read=x",
    ],
    [
      ["-RW=src"],
      'Invalid use of "-RW=src": only a single flag takes a value, e.g. -R=src -W=src',
    ],
    [["-yR=src"], 'Invalid use of "-yR=src": only a single flag takes a value, e.g. -y -R=src'],
  ];
  for (const [argv, message] of table) {
    const r = parseGrantFlags(argv, { cwd });
    assert(!r.ok, argv.join(" "));
    if (!r.ok) assertEquals(r.error, { kind: "usage", message }, argv.join(" "));
  }
});

Deno.test("harness's short boolean flags never clash with Deno's permission letters", () => {
  for (const letter of HARNESS_ARGUMENTS.shortBooleans) {
    assert(!"RWNESA".includes(letter), `-${letter} is both a harness and a Deno flag`);
  }
});

Deno.test("parseGrantFlags() rejects an empty value", () => {
  for (const flag of ["--allow-read=", "--deny-net=a,,b", "-R="]) {
    const r = parseGrantFlags([flag], { cwd });
    assert(!r.ok, flag);
    if (!r.ok) assert(r.error.kind === "usage" && r.error.message.startsWith("Empty value"));
  }
});

Deno.test("formatGrants() prints one compact line", () => {
  assertEquals(
    formatGrants(parse(["--allow-read=.", "-N"]).grants, { cwd }),
    "read=. write=none net=all run=none env=none sys=none ffi=none",
  );
  assertEquals(
    formatGrants(parse(["--allow-read=src,/etc/hosts", "--deny-write"]).grants, { cwd }),
    "read=./src,/etc/hosts write=none net=none run=none env=none sys=none ffi=none deny-write=all",
  );
});
