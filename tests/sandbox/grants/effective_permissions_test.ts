import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { effectivePermissions } from "../../../src/sandbox/grants/effective_permissions.ts";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";

const cwd = "/w";

function parse(argv: string[]) {
  const r = parseGrantFlags(argv, { cwd });
  if (!r.ok) throw new Error(`unexpected error for ${argv.join(" ")}`);
  return r.value;
}

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
