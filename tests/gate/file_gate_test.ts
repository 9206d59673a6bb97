// The gate's decisions on a real temp tree: grants, deny lists, the protected set, the hidden
// data folder, and identity (a denied or protected entry renamed or hard-linked stays refused).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { FileGate } from "../../src/gate/file_gate.ts";
import type { FileAccess, GateRules } from "../../src/gate/gate_types.ts";

async function tree(): Promise<string & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "gate_" }));
  return Object.assign(Object(dir), {
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  }) as string & AsyncDisposable;
}

function rules(over: Partial<GateRules>): GateRules {
  return {
    read: [],
    write: [],
    denyRead: [],
    denyWrite: [],
    protected: [],
    protectedNames: [],
    hidden: [],
    ...over,
  };
}

function reason(gate: FileGate, access: FileAccess, path: string): string {
  const verdict = gate.check(access, path);
  return verdict.ok ? "ok" : verdict.refusal.reason;
}

Deno.test("FileGate.check() applies the grants and the deny lists, also where a link leads", async () => {
  await using t = await tree();
  const w = String(t);
  await Deno.mkdir(join(w, "src"));
  await Deno.writeTextFile(join(w, ".env"), "KEY=1");
  await Deno.symlink(join(w, ".env"), join(w, "src", "cfg"));
  const gate = FileGate.open(
    rules({ read: [w], write: [join(w, "src")], denyRead: [join(w, ".env")] }),
  );
  assertEquals(reason(gate, "read", join(w, "src", "a.ts")), "ok");
  assertEquals(reason(gate, "read", "/etc/passwd"), "not_granted");
  assertEquals(reason(gate, "read", join(w, ".env")), "denied");
  assertEquals(reason(gate, "read", join(w, "src", "cfg")), "denied");
  assertEquals(reason(gate, "write", join(w, "src", "new.ts")), "ok");
  assertEquals(reason(gate, "write", join(w, "top.ts")), "not_granted");
  const refused = gate.check("read", join(w, ".env"));
  assert(!refused.ok && refused.refusal.message.includes("--deny-read"));
});

Deno.test("FileGate.check() protects .git anywhere, .harness, plugin folders, and what holds them", async () => {
  await using t = await tree();
  const w = String(t);
  await Deno.mkdir(join(w, "vendor", "lib", ".git"), { recursive: true });
  await Deno.mkdir(join(w, "plugins"));
  const gate = FileGate.open(rules({
    read: [w],
    write: [w],
    protected: [
      { path: join(w, ".harness"), kind: "project" },
      { path: join(w, "plugins"), kind: "plugins" },
    ],
    protectedNames: [".git"],
  }));
  for (
    const path of [
      ".git/config",
      "vendor/lib/.git/hooks/pre-commit",
      ".harness/config.jsonc",
      "plugins/x.ts",
    ]
  ) {
    assertEquals(reason(gate, "write", join(w, path)), "protected", path);
    assertEquals(reason(gate, "read", join(w, path)), "ok", path);
  }
  // Moving or removing a folder that holds a protected entry would carry it out of reach.
  assertEquals(reason(gate, "delete", join(w, "vendor", "lib")), "protected");
  assertEquals(reason(gate, "delete", w), "protected");
  assertEquals(reason(gate, "delete", join(w, "vendor", "other")), "ok");
  const git = gate.check("write", join(w, ".git", "config"));
  assert(!git.ok && git.refusal.message.includes("--writable-git"), JSON.stringify(git));
});

Deno.test("FileGate.check() compares names without case where the file system does", async () => {
  await using t = await tree();
  const w = String(t);
  const gate = FileGate.open(rules({ write: [w], protectedNames: [".git"] }), {
    caseInsensitive: true,
  });
  assertEquals(reason(gate, "write", join(w, ".GIT", "config")), "protected");
  const strict = FileGate.open(rules({ write: [w], protectedNames: [".git"] }), {
    caseInsensitive: false,
  });
  assertEquals(reason(strict, "write", join(w, ".GIT", "config")), "ok");
});

Deno.test("FileGate.check() hides the data folder even when everything is readable, but its exception", async () => {
  await using t = await tree();
  const data = join(String(t), "data");
  const outputs = join(data, "outputs", "abc");
  await Deno.mkdir(outputs, { recursive: true });
  await Deno.writeTextFile(join(data, "sessions.db"), "secret");
  const gate = FileGate.open(rules({
    read: true,
    write: true,
    hidden: [{ path: data, kind: "data", except: [outputs] }],
  }));
  assertEquals(reason(gate, "read", join(data, "sessions.db")), "hidden");
  assertEquals(reason(gate, "list", join(data, "outputs")), "hidden");
  assertEquals(reason(gate, "write", join(data, "x")), "hidden");
  assertEquals(reason(gate, "read", join(outputs, "1.txt")), "ok");
});

Deno.test("FileGate: a denied folder or a protected one renamed is refused by identity", async () => {
  await using t = await tree();
  const w = String(t);
  await Deno.mkdir(join(w, "secrets"));
  await Deno.writeTextFile(join(w, "secrets", "key.txt"), "k");
  await Deno.mkdir(join(w, "tools", "plugins"), { recursive: true });
  const gate = FileGate.open(rules({
    read: [w],
    write: [w],
    denyRead: [join(w, "secrets")],
    protected: [{ path: join(w, "tools", "plugins"), kind: "plugins" }],
  }));
  await Deno.rename(join(w, "secrets"), join(w, "open"));
  await Deno.rename(join(w, "tools"), join(w, "t2"));
  assertEquals(reason(gate, "read", join(w, "open", "key.txt")), "moved");
  assertEquals(reason(gate, "list", join(w, "open")), "moved");
  assertEquals(reason(gate, "write", join(w, "t2", "plugins", "x.ts")), "moved");
  // The same folder, new name: reading was never denied there.
  assertEquals(reason(gate, "read", join(w, "t2", "plugins", "x.ts")), "ok");
  // The refusal names the path the entry had at start.
  const moved = gate.check("read", join(w, "open", "key.txt"));
  assert(
    !moved.ok && moved.refusal.message.includes(join(w, "secrets", "key.txt")),
    JSON.stringify(moved),
  );
  const found = gate.verify().map((m) => `${m.role}:${m.path.slice(w.length)}:${m.now}`);
  assertEquals(found.sort(), ["deny_read:/secrets:missing", "protected:/tools/plugins:missing"]);
  assertEquals(gate.verify(), []);
});

Deno.test("FileGate.autoApprovalStop() looks again: a move since the last check stops it", async () => {
  await using t = await tree();
  const w = String(t);
  await Deno.mkdir(join(w, "secrets"));
  const gate = FileGate.open(rules({ read: [w], write: [w], denyRead: [join(w, "secrets")] }));
  assertEquals(gate.autoApprovalStop(), undefined);
  // Nothing called verify() since (a hook ran, a server moved it between its calls).
  await Deno.rename(join(w, "secrets"), join(w, "open"));
  const stop = gate.autoApprovalStop();
  assert(stop?.includes(`"${join(w, "secrets")}" (--deny-read) was moved or removed`), stop);
  // It is still reported once, by the next check after a call.
  assertEquals(gate.verify().map((m) => m.path), [join(w, "secrets")]);
  assertEquals(gate.verify(), []);
});

Deno.test("FileGate: a hard link to a denied file is refused by the file's identity", async () => {
  await using t = await tree();
  const w = String(t);
  await Deno.writeTextFile(join(w, ".env"), "KEY=1");
  const gate = FileGate.open(rules({ read: [w], write: [w], denyRead: [join(w, ".env")] }));
  await Deno.link(join(w, ".env"), join(w, "copy.txt"));
  assertEquals(reason(gate, "read", join(w, "copy.txt")), "moved");
  // Replaced in place (an editor's atomic save): the new file is known from now on too.
  await Deno.remove(join(w, ".env"));
  await Deno.writeTextFile(join(w, ".env"), "KEY=2");
  assertEquals(gate.verify().map((m) => m.now), ["replaced"]);
  await Deno.link(join(w, ".env"), join(w, "copy2.txt"));
  assertEquals(reason(gate, "read", join(w, "copy2.txt")), "moved");
  assertEquals(reason(gate, "read", join(w, "copy.txt")), "moved");
});

Deno.test("FileGate.view() carries rules and identities to another thread's gate", async () => {
  await using t = await tree();
  const w = String(t);
  await Deno.writeTextFile(join(w, ".env"), "KEY=1");
  const gate = FileGate.open(rules({ read: [w], denyRead: [join(w, ".env")] }));
  const view = structuredClone(gate.view({ grantsByDeno: true }));
  assertEquals(view.grantsByDeno, true);
  assertEquals(view.identities.length, 1);
  const copy = FileGate.fromView(view);
  await Deno.rename(join(w, ".env"), join(w, "x"));
  assertEquals(reason(copy, "read", join(w, "x")), "moved");
  assertEquals(reason(copy, "read", "/etc/hostname"), "ok"); // Deno's grants decide that
});
