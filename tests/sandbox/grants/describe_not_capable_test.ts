import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { describeNotCapable, flagFor } from "../../../src/sandbox/grants/describe_not_capable.ts";
import { emptyGrants } from "../../../src/sandbox/grants/grants.ts";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";

const cwd = "/w";

function parse(argv: string[]) {
  const r = parseGrantFlags(argv, { cwd });
  if (!r.ok) throw new Error(`unexpected error for ${argv.join(" ")}`);
  return r.value;
}

Deno.test("flagFor() names the flag that would allow an operation", () => {
  assertEquals(flagFor("read", "/etc/passwd"), "--allow-read=/etc/passwd");
  assertEquals(flagFor("net", "example.com:443"), "--allow-net=example.com:443");
  assertEquals(flagFor("env"), "--allow-env");
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

Deno.test("describeNotCapable() in plan mode: a write outside the plan folder is plan mode's doing", () => {
  const deno = 'Requires write access to "/w/a.txt", run again with the --allow-write flag';
  const grants = parse(["-R", "--allow-write=/plans/s1"]).grants;
  assertEquals(
    describeNotCapable(deno, { grants, tool: "write_file", planFolder: "/plans/s1" }),
    'Requires write access to "/w/a.txt": plan mode writes only the plan folder "/plans/s1": ' +
      "write the plan there; files change once the user leaves plan mode",
  );
  // Reads are not plan mode's to refuse: the flag is still the advice.
  assertEquals(
    describeNotCapable('Requires read access to "/etc/hosts"', {
      grants,
      tool: "cat",
      planFolder: "/plans/s1",
    }),
    'Requires read access to "/etc/hosts": tool "cat" does not declare it in its permissions',
  );
});

Deno.test("describeNotCapable() for a subagent names its agent file where the user granted the path", () => {
  const user = emptyGrants();
  user.allow.read = ["/w"];
  user.allow.write = ["/w"];
  const child = emptyGrants();
  child.allow.read = ["/w"];
  child.allow.write = ["/w/docs"];
  const inside = describeNotCapable('Requires write access to "/w/src/a.ts"', {
    grants: child,
    tool: "write_file",
    narrowedFrom: user,
  });
  assert(inside.includes("this subagent may write only the paths its agent file allows"), inside);
  assert(!inside.includes("--allow-write"), inside);
  const beyond = describeNotCapable('Requires write access to "/etc/x"', {
    grants: child,
    tool: "write_file",
    narrowedFrom: user,
  });
  assert(beyond.endsWith("restart harness with --allow-write=/etc/x"), beyond);
});
