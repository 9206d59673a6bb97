import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  describeNotCapable,
  effectivePermissions,
  emptyGrants,
  flagFor,
  formatGrants,
  type Grant,
  parseGrantFlags,
  type PermissionName,
} from "../../src/sandbox/grants.ts";

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

Deno.test("flagFor() names the flag that would allow an operation", () => {
  assertEquals(flagFor("read", "/etc/passwd"), "--allow-read=/etc/passwd");
  assertEquals(flagFor("net", "example.com:443"), "--allow-net=example.com:443");
  assertEquals(flagFor("env"), "--allow-env");
});

Deno.test("effectivePermissions() intersects grants with what a tool declares", () => {
  const { grants } = parse(["--allow-read=.", "--allow-write=out", "-N"]);
  const e = effectivePermissions(grants, { read: true, write: ["."], net: ["api.x"] }, {
    workspace: cwd,
  });
  assertEquals(e.permissions, {
    read: ["/w"],
    write: ["/w/out"],
    net: ["api.x"],
    run: false,
    env: false,
    sys: false,
    ffi: false,
    import: false,
  });
  assertEquals(e.guard, {});
  assertEquals(effectivePermissions(grants, undefined, { workspace: cwd }).permissions.read, false);
});

Deno.test("effectivePermissions() narrows allow lists by --deny-* and guards the rest", () => {
  const { grants } = parse([
    "--allow-read=.",
    "--allow-write=out,tmp",
    "--deny-write=tmp",
    "--deny-read=.env",
    "-E",
    "--deny-env=SECRET",
    "-S",
    "--deny-sys=hostname",
    "-N",
    "--deny-net=evil.com",
  ]);
  const e = effectivePermissions(
    grants,
    { read: true, write: true, env: true, sys: true, net: true },
    { workspace: cwd, env: ["HOME", "SECRET"] },
  );
  assertEquals(e.permissions.write, ["/w/out"]);
  assertEquals(e.permissions.read, ["/w"]);
  assertEquals(e.permissions.env, ["HOME"]);
  assert(Array.isArray(e.permissions.sys) && !e.permissions.sys.includes("hostname"));
  assertEquals(e.permissions.net, true);
  assertEquals(e.guard, { read: ["/w/.env"], net: ["evil.com"] });
  const all = effectivePermissions(parse(["-A", "--deny-read"]).grants, { read: true }, {
    workspace: cwd,
  });
  assertEquals(all.permissions.read, false);
});

Deno.test("describeNotCapable() says which flag would allow the operation", () => {
  const deno = 'Requires read access to "/etc/hosts", run again with the --allow-read flag';
  assertEquals(
    describeNotCapable(deno, { grants: emptyGrants(), tool: "cat" }),
    'Requires read access to "/etc/hosts": restart harness with --allow-read=/etc/hosts',
  );
  assertEquals(
    describeNotCapable(deno, { grants: parse(["-R"]).grants, tool: "cat" }),
    'Requires read access to "/etc/hosts": tool "cat" does not declare it in its permissions',
  );
  assertEquals(
    describeNotCapable(deno, { grants: parse(["-R", "--deny-read=/etc"]).grants, tool: "cat" }),
    'Requires read access to "/etc/hosts": it is denied by --deny-read',
  );
  assertEquals(
    describeNotCapable('Requires net access to "a.com:443", run again with the --allow-net flag', {
      grants: emptyGrants(),
      tool: "fetch",
    }),
    'Requires net access to "a.com:443": restart harness with --allow-net=a.com:443',
  );
});
