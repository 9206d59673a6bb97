import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { emptyGrants, formatGrants, parseGrantFlags } from "../../src/sandbox/grants.ts";
import type { Grant, PermissionName } from "../../src/sandbox/permission_name.ts";

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
    "-RW=x",
    "-A=1",
    "--allow-all=1",
    "-y",
    "--",
    "--allow-read",
  ]);
  assertEquals(rest, [
    "-p",
    "hello",
    "--allow-foo",
    "--model",
    "m",
    "-RW=x",
    "-A=1",
    "--allow-all=1",
    "-y",
    "--",
    "--allow-read",
  ]);
  assertEquals(grants.allow.read, true);
  assertEquals(grants.allow.write, []);
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
