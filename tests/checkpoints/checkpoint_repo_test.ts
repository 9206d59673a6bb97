// CheckpointRepo against real git on temp workspaces: snapshots, changed paths, restores,
// skipped files, and hostile workspaces that try to make git run their code.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { CheckpointRepo } from "../../src/checkpoints/checkpoint_repo.ts";

interface Temp extends AsyncDisposable {
  root: string;
  workspace: string;
  gitDir: string;
  write(files: Record<string, string>): void;
  read(path: string): string | undefined;
}

async function temp(files: Record<string, string> = {}): Promise<Temp> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_ckpt_" }));
  const workspace = join(root, "work");
  const gitDir = join(root, "data", "checkpoints", "g");
  Deno.mkdirSync(workspace);
  const write = (more: Record<string, string>) => {
    for (const [path, text] of Object.entries(more)) {
      Deno.mkdirSync(join(workspace, path, ".."), { recursive: true });
      Deno.writeTextFileSync(join(workspace, path), text);
    }
  };
  write(files);
  return {
    root,
    workspace,
    gitDir,
    write,
    read(path) {
      try {
        return Deno.readTextFileSync(join(workspace, path));
      } catch {
        return undefined;
      }
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

function open(t: Temp, extra: Partial<Parameters<typeof CheckpointRepo.open>[0]> = {}) {
  return CheckpointRepo.open({
    git: "git",
    workspace: t.workspace,
    gitDir: t.gitDir,
    owner: "s1",
    maxFileBytes: 1024,
    ...extra,
  });
}

Deno.test("CheckpointRepo.snapshot() records changes and restore() puts files back", async () => {
  await using t = await temp({ "a.txt": "one\n", "src/b.ts": "b\n" });
  const repo = await open(t);
  const before = await repo.snapshot();
  t.write({ "a.txt": "two\n", "src/new/c.ts": "c\n" });
  Deno.removeSync(join(t.workspace, "src/b.ts"));
  const after = await repo.snapshot();
  assert(before.commit !== after.commit);
  const changed = await repo.changedPaths(before.commit, after.commit);
  assertEquals(changed, ["a.txt", "src/b.ts", "src/new/c.ts"]);
  await repo.restore(before.commit, changed);
  assertEquals(t.read("a.txt"), "one\n");
  assertEquals(t.read("src/b.ts"), "b\n");
  assertEquals(t.read("src/new/c.ts"), undefined);
  // The folder the turn created goes with its last file; the workspace keeps src/.
  assertEquals([...Deno.readDirSync(join(t.workspace, "src"))].map((e) => e.name), ["b.ts"]);
  await repo.close();
});

Deno.test("CheckpointRepo.snapshot() of an unchanged workspace reuses the last commit", async () => {
  await using t = await temp({ "a.txt": "x" });
  const repo = await open(t);
  const first = await repo.snapshot();
  const second = await repo.snapshot();
  assertEquals(second.commit, first.commit);
  await repo.close();
});

Deno.test("CheckpointRepo skips large files and nested repositories once, with a note", async () => {
  await using t = await temp({ "small.txt": "s", "big.bin": "x".repeat(5000) });
  Deno.mkdirSync(join(t.workspace, "vendor/lib"), { recursive: true });
  await new Deno.Command("git", { args: ["init", "-q"], cwd: join(t.workspace, "vendor/lib") })
    .output();
  t.write({ "vendor/lib/file.c": "int x;" });
  const repo = await open(t);
  const first = await repo.snapshot();
  assertEquals(first.skipped.map((s) => [s.path, s.why]).sort(), [
    ["big.bin", "size"],
    ["vendor/lib", "repository"],
  ]);
  assertEquals((await repo.snapshot()).skipped, [], "each is said once");
  const files = await repo.present(first.commit, ["small.txt", "big.bin", "vendor/lib/file.c"]);
  assertEquals([...files], ["small.txt"]);
  await repo.close();
});

Deno.test("CheckpointRepo honours .gitignore and stays inside its scope", async () => {
  await using t = await temp({
    ".gitignore": "node_modules/\n",
    "node_modules/x/index.js": "x",
    "src/a.ts": "a",
    "docs/b.md": "b",
  });
  const repo = await open(t, { scope: ["src"] });
  const snap = await repo.snapshot();
  const held = await repo.present(snap.commit, [
    "src/a.ts",
    "docs/b.md",
    "node_modules/x/index.js",
  ]);
  assertEquals([...held], ["src/a.ts"]);
  await repo.close();
});

Deno.test("CheckpointRepo.restore() replaces a folder swapped for a link instead of writing through it", async () => {
  await using t = await temp({ "src/a.ts": "a\n" });
  const outside = join(t.root, "outside");
  Deno.mkdirSync(outside);
  Deno.writeTextFileSync(join(outside, "a.ts"), "outside\n");
  const repo = await open(t);
  const before = await repo.snapshot();
  Deno.removeSync(join(t.workspace, "src"), { recursive: true });
  Deno.symlinkSync(outside, join(t.workspace, "src"));
  const after = await repo.snapshot();
  const changed = await repo.changedPaths(before.commit, after.commit);
  await repo.restore(before.commit, changed);
  assertEquals(Deno.readTextFileSync(join(outside, "a.ts")), "outside\n");
  assert(Deno.lstatSync(join(t.workspace, "src")).isDirectory);
  assertEquals(t.read("src/a.ts"), "a\n");
  await repo.close();
});

Deno.test("CheckpointRepo.restore() does not delete through a folder swapped for a link", async () => {
  await using t = await temp({});
  const outside = join(t.root, "outside");
  Deno.mkdirSync(outside);
  const repo = await open(t);
  const before = await repo.snapshot();
  t.write({ "gen/new.ts": "n" });
  const after = await repo.snapshot();
  // The new folder became a link to a folder holding a file of the same name.
  Deno.removeSync(join(t.workspace, "gen"), { recursive: true });
  Deno.writeTextFileSync(join(outside, "new.ts"), "keep");
  Deno.symlinkSync(outside, join(t.workspace, "gen"));
  await repo.restore(before.commit, await repo.changedPaths(before.commit, after.commit));
  assertEquals(Deno.readTextFileSync(join(outside, "new.ts")), "keep");
  await repo.close();
});

Deno.test("CheckpointRepo keeps bytes exact whatever the workspace's .gitattributes say", async () => {
  await using t = await temp({
    ".gitattributes": "* text eol=crlf\n*.txt ident\n",
    "a.txt": "line one\r\nline two\n$Id$\n",
  });
  const repo = await open(t);
  const before = await repo.snapshot();
  t.write({ "a.txt": "changed" });
  const after = await repo.snapshot();
  await repo.restore(before.commit, await repo.changedPaths(before.commit, after.commit));
  assertEquals(t.read("a.txt"), "line one\r\nline two\n$Id$\n");
  await repo.close();
});

Deno.test("CheckpointRepo: two sessions in one workspace keep their own chains", async () => {
  await using t = await temp({ "a.txt": "1" });
  const one = await open(t, { owner: "s1" });
  const two = await open(t, { owner: "s2" });
  const a = await one.snapshot();
  t.write({ "a.txt": "2" });
  const b = await two.snapshot();
  t.write({ "a.txt": "3" });
  const c = await one.snapshot();
  assertEquals(await one.changedPaths(a.commit, c.commit), ["a.txt"]);
  assertEquals(await two.changedPaths(a.commit, b.commit), ["a.txt"]);
  await one.close();
  await two.close();
  // A third session starts from the index they left: nothing to hash again.
  const three = await open(t, { owner: "s3" });
  assertEquals((await three.snapshot()).skipped, []);
  await three.close();
});

// --- A hostile workspace: nothing in it may make git run a program. ---

/** A script that leaves a marker file when it runs. */
function marker(t: Temp): { script: string; ran: () => boolean } {
  const file = join(t.root, "pwned");
  const script = join(t.root, "evil.sh");
  Deno.writeTextFileSync(script, `#!/bin/sh\ntouch '${file}'\ncat\n`);
  Deno.chmodSync(script, 0o755);
  return {
    script,
    ran: () => {
      try {
        Deno.statSync(file);
        return true;
      } catch {
        return false;
      }
    },
  };
}

async function gitIn(dir: string, ...args: string[]) {
  const out = await new Deno.Command("git", { args, cwd: dir, stdout: "null", stderr: "null" })
    .output();
  assert(out.success, `git ${args.join(" ")}`);
}

Deno.test("attack: the workspace's own .git config (fsmonitor, hooks, filters) runs nothing", async () => {
  await using t = await temp({ "a.txt": "x", ".gitattributes": "* filter=evil diff=evil\n" });
  const evil = marker(t);
  await gitIn(t.workspace, "init", "-q");
  await gitIn(t.workspace, "config", "core.fsmonitor", evil.script);
  await gitIn(t.workspace, "config", "core.hooksPath", join(t.root));
  await gitIn(t.workspace, "config", "filter.evil.clean", evil.script);
  await gitIn(t.workspace, "config", "filter.evil.smudge", evil.script);
  await gitIn(t.workspace, "config", "filter.evil.process", evil.script);
  await gitIn(t.workspace, "config", "diff.evil.textconv", evil.script);
  Deno.copyFileSync(evil.script, join(t.workspace, ".git/hooks/post-checkout"));
  const repo = await open(t);
  const before = await repo.snapshot();
  t.write({ "a.txt": "y", "b.txt": "z" });
  const after = await repo.snapshot();
  await repo.restore(before.commit, await repo.changedPaths(before.commit, after.commit));
  await repo.close();
  assertEquals(evil.ran(), false);
  assertEquals(t.read("a.txt"), "x");
});

Deno.test("attack: a nested repository's fsmonitor and a user's global config run nothing", async () => {
  await using t = await temp({ "a.txt": "x" });
  const evil = marker(t);
  const nested = join(t.workspace, "sub");
  Deno.mkdirSync(nested);
  await gitIn(nested, "init", "-q");
  Deno.writeTextFileSync(join(nested, "f"), "f");
  await gitIn(nested, "add", "f");
  await gitIn(nested, "config", "core.fsmonitor", evil.script);
  // A global config in HOME and XDG_CONFIG_HOME that would run the script.
  const home = join(t.root, "home");
  Deno.mkdirSync(join(home, ".config", "git"), { recursive: true });
  const global = `[core]\n\tfsmonitor = ${evil.script}\n[filter "x"]\n\tclean = ${evil.script}\n`;
  Deno.writeTextFileSync(join(home, ".gitconfig"), global);
  Deno.writeTextFileSync(join(home, ".config", "git", "config"), global);
  Deno.writeTextFileSync(join(home, ".config", "git", "attributes"), "* filter=x\n");
  const saved = { home: Deno.env.get("HOME"), xdg: Deno.env.get("XDG_CONFIG_HOME") };
  Deno.env.set("HOME", home);
  Deno.env.set("XDG_CONFIG_HOME", join(home, ".config"));
  Deno.env.set("GIT_CONFIG_PARAMETERS", `'core.fsmonitor'='${evil.script}'`);
  try {
    const repo = await open(t);
    const before = await repo.snapshot();
    t.write({ "a.txt": "y" });
    Deno.writeTextFileSync(join(nested, "f"), "changed");
    const after = await repo.snapshot();
    await repo.restore(before.commit, await repo.changedPaths(before.commit, after.commit));
    await repo.close();
  } finally {
    saved.home === undefined ? Deno.env.delete("HOME") : Deno.env.set("HOME", saved.home);
    saved.xdg === undefined
      ? Deno.env.delete("XDG_CONFIG_HOME")
      : Deno.env.set("XDG_CONFIG_HOME", saved.xdg);
    Deno.env.delete("GIT_CONFIG_PARAMETERS");
  }
  assertEquals(evil.ran(), false);
});

Deno.test("attack: a hook or config planted in the shadow repository is wiped when it opens", async () => {
  await using t = await temp({ "a.txt": "x" });
  const evil = marker(t);
  const first = await open(t);
  await first.snapshot();
  await first.close();
  // Something wrote into the data folder between runs.
  Deno.copyFileSync(evil.script, join(t.gitDir, "hooks", "post-checkout"));
  Deno.copyFileSync(evil.script, join(t.gitDir, "hooks", "pre-commit"));
  Deno.writeTextFileSync(
    join(t.gitDir, "config"),
    `[core]\n\tfsmonitor = ${evil.script}\n\thooksPath = ${t.root}\n`,
  );
  const repo = await open(t);
  const before = await repo.snapshot();
  t.write({ "a.txt": "y" });
  const after = await repo.snapshot();
  await repo.restore(before.commit, await repo.changedPaths(before.commit, after.commit));
  await repo.close();
  assertEquals(evil.ran(), false);
});

Deno.test("CheckpointRepo handles names with spaces, quotes, newlines and leading dashes", async () => {
  const names = ["a b.txt", 'q"uote.txt', "new\nline.txt", "-rf", ":(glob)*.txt", "ü.txt"];
  await using t = await temp(Object.fromEntries(names.map((n) => [n, "v1"])));
  const repo = await open(t);
  const before = await repo.snapshot();
  t.write(Object.fromEntries(names.map((n) => [n, "v2"])));
  const after = await repo.snapshot();
  const changed = await repo.changedPaths(before.commit, after.commit);
  assertEquals(changed, [...names].sort());
  await repo.restore(before.commit, changed);
  for (const name of names) assertEquals(t.read(name), "v1", name);
  await repo.close();
});

Deno.test("CheckpointRepo records a file that became a folder and restores it", async () => {
  await using t = await temp({ "thing": "file" });
  const repo = await open(t);
  const before = await repo.snapshot();
  Deno.removeSync(join(t.workspace, "thing"));
  t.write({ "thing/inner.txt": "in" });
  const after = await repo.snapshot();
  const changed = await repo.changedPaths(before.commit, after.commit);
  assertEquals(changed, ["thing", "thing/inner.txt"]);
  await repo.restore(before.commit, changed);
  assertEquals(t.read("thing"), "file");
  await repo.close();
});

Deno.test("CheckpointRepo.diffStat() counts lines added and removed per path", async () => {
  await using t = await temp({ "a.txt": "one\ntwo\n", "gone.txt": "x\n", "bin.dat": "a" });
  const repo = await open(t);
  const before = await repo.snapshot();
  t.write({ "a.txt": "one\n2\n3\n", "new file.txt": "n\n", "bin.dat": "\u0000\u0001" });
  Deno.removeSync(join(t.workspace, "gone.txt"));
  const after = await repo.snapshot();
  assertEquals(await repo.diffStat(before.commit, after.commit), [
    { path: "a.txt", added: 2, removed: 1, binary: false },
    { path: "bin.dat", added: 0, removed: 0, binary: true },
    { path: "gone.txt", added: 0, removed: 1, binary: false },
    { path: "new file.txt", added: 1, removed: 0, binary: false },
  ]);
  assertEquals(await repo.diffStat(after.commit, after.commit), []);
  await repo.close();
});
