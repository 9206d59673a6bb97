// FileGate.grantRead: a loaded skill's folder becomes readable, never writable, and the list
// the tool workers and the command sandbox take agrees with the gate's own decisions; a folder
// that holds a denied, protected or hidden entry, or a link out of it, is refused.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { FileGate } from "../../src/gate/file_gate.ts";
import type { GateRules } from "../../src/gate/gate_types.ts";
import { withSessionReads } from "../../src/gate/session_reads.ts";

async function tree(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "gate_reads_" }));
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

function gateOf(w: string, over: Partial<GateRules> = {}): FileGate {
  return FileGate.open({
    read: [join(w, "work")],
    write: [join(w, "work")],
    denyRead: [],
    denyWrite: [],
    protected: [],
    protectedNames: [".git"],
    hidden: [],
    ...over,
  });
}

async function skill(w: string, name: string): Promise<string> {
  const folder = join(w, "skills", name);
  await Deno.mkdir(join(folder, "scripts"), { recursive: true });
  await Deno.writeTextFile(join(folder, "SKILL.md"), "x");
  await Deno.writeTextFile(join(folder, "scripts", "run.sh"), "echo");
  return folder;
}

Deno.test("FileGate.grantRead() makes a folder readable for the session, never writable, for all", async () => {
  await using t = await tree();
  const folder = await skill(t.path, "pdf");
  await Deno.symlink("scripts/run.sh", join(folder, "inner-link"));
  const gate = gateOf(t.path);
  assertEquals(gate.check("read", join(folder, "SKILL.md")).ok, false);
  assertEquals(gate.grantRead(folder), { ok: true, real: folder, added: true });
  assertEquals(gate.grantRead(join(folder, "scripts")), {
    ok: true,
    real: join(folder, "scripts"),
    added: false,
  });
  assert(gate.check("read", join(folder, "scripts", "run.sh")).ok);
  assert(gate.check("list", folder).ok);
  assertEquals(gate.check("write", join(folder, "new.txt")).ok, false);
  // The workers' view and the commands' grants hold the same folder.
  assertEquals(gate.sessionReads(), [folder]);
  assertEquals(gate.view().rules.read, [join(t.path, "work"), folder]);
  const grants = { allow: { read: [join(t.path, "work")], write: [] as string[] } };
  assertEquals(withSessionReads(grants, gate.sessionReads()).allow, {
    read: [join(t.path, "work"), folder],
    write: [],
  });
  assert(FileGate.fromView(gate.view()).check("read", join(folder, "SKILL.md")).ok);
});

Deno.test("attack: FileGate.grantRead() refuses a folder with a link out, or holding a denied, protected or hidden entry", async () => {
  await using t = await tree();
  await Deno.mkdir(join(t.path, "home", ".ssh"), { recursive: true });
  await Deno.writeTextFile(join(t.path, "home", ".ssh", "id_rsa"), "KEY");
  const linked = await skill(t.path, "linked");
  await Deno.symlink(join(t.path, "home", ".ssh"), join(linked, "scripts", "keys"));
  const denied = await skill(t.path, "denied");
  const cloned = await skill(t.path, "cloned");
  await Deno.mkdir(join(cloned, ".git"));
  const hiding = await skill(t.path, "hiding");
  const gate = gateOf(t.path, {
    // A denied path that does not exist yet counts too.
    denyRead: [join(denied, "secrets", "later.env"), join(t.path, "home", ".ssh")],
    hidden: [{ path: join(hiding, "data"), kind: "data", except: [] }],
  });
  const refused = (folder: string) => {
    const grant = gate.grantRead(folder);
    return grant.ok ? "granted" : grant.reason;
  };
  match(refused(linked), /"[^"]*keys" links out of the folder \(to "[^"]*\.ssh"\)/);
  match(refused(denied), /it holds "[^"]*later\.env", which harness denies, hides or protects/);
  match(refused(cloned), /it holds "[^"]*\.git", which harness protects/);
  match(refused(hiding), /it holds "[^"]*data"/);
  // A folder holding ~/.ssh when --deny-read names it: the grant would reach the keys.
  match(refused(join(t.path, "home")), /it holds "[^"]*\.ssh", which harness denies/);
  assertEquals(gate.sessionReads(), []);
  assertEquals(gate.check("read", join(linked, "SKILL.md")).ok, false);
});
