// ShadowStore against real git on temp workspaces: the states of named paths (content, absent,
// and the reasons a state is unknown), writing states back exactly, refusing paths that leave
// the workspace, and hostile workspaces that try to make git run their code.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { ShadowStore } from "../../src/checkpoints/shadow_store.ts";
import type { CheckpointAccess } from "../../src/checkpoints/checkpoint_paths.ts";
import { currentDenoDir } from "../helpers/run_cli.ts";

interface Temp extends AsyncDisposable {
  root: string;
  workspace: string;
  gitDir: string;
  write(files: Record<string, string>): void;
  read(path: string): string | undefined;
  /** Whether the hostile script ran. */
  ran(): boolean;
  /** A script that leaves a marker when it runs. */
  evil: string;
}

const everything: CheckpointAccess = { mayRead: () => true, mayWrite: () => true };

async function temp(files: Record<string, string> = {}): Promise<Temp> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_shadow_" }));
  const workspace = join(root, "work");
  Deno.mkdirSync(workspace);
  const write = (more: Record<string, string>) => {
    for (const [path, text] of Object.entries(more)) {
      Deno.mkdirSync(join(workspace, path, ".."), { recursive: true });
      Deno.writeTextFileSync(join(workspace, path), text);
    }
  };
  write(files);
  const evil = join(root, "evil.sh");
  Deno.writeTextFileSync(evil, `#!/bin/sh\ntouch '${join(root, "pwned")}'\ncat\n`);
  Deno.chmodSync(evil, 0o755);
  return {
    root,
    workspace,
    gitDir: join(root, "data", "checkpoints", "g"),
    write,
    read(path) {
      try {
        return Deno.readTextFileSync(join(workspace, path));
      } catch {
        return undefined;
      }
    },
    ran() {
      try {
        Deno.statSync(join(root, "pwned"));
        return true;
      } catch {
        return false;
      }
    },
    evil,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

function open(t: Temp, access: CheckpointAccess = everything) {
  return ShadowStore.open({
    git: "git",
    workspace: t.workspace,
    gitDir: t.gitDir,
    owner: "s1",
    maxFileBytes: 1024,
    access,
  });
}

Deno.test("ShadowStore.read() gives content, absent, and why other states are unknown", async () => {
  await using t = await temp({ "a.txt": "one\n", "big.bin": "x".repeat(5000), "d/f": "f" });
  Deno.symlinkSync("a.txt", join(t.workspace, "link"));
  t.write({ "run.sh": "#!/bin/sh\n", "secret": "s" });
  Deno.chmodSync(join(t.workspace, "run.sh"), 0o755);
  const store = await open(t, {
    mayRead: (path) => !path.endsWith("secret"),
    mayWrite: () => true,
  });
  const paths = ["a.txt", "gone.txt", "big.bin", "d", "link", "run.sh", "secret"];
  const states = await store.read(paths);
  assert(states.get("a.txt")!.startsWith("100644 "));
  assert(states.get("link")!.startsWith("120000 "));
  assert(states.get("run.sh")!.startsWith("100755 "));
  assertEquals(
    ["gone.txt", "big.bin", "d", "secret"].map((path) => states.get(path)),
    ["absent", "oversize", "folder", "unreadable"],
  );
});

Deno.test("ShadowStore.write() puts content back byte for byte and removes what was absent", async () => {
  const names = ["a b.txt", 'q"uote.txt', "new\nline.txt", "-rf", ":(glob)*.txt", "ü.txt"];
  await using t = await temp({
    ".gitattributes": "* text eol=crlf\n*.txt ident\n",
    ...Object.fromEntries(names.map((name) => [name, "line one\r\nline two\n$Id$\n"])),
  });
  const store = await open(t);
  const before = await store.read([...names, "created.txt"]);
  t.write({ ...Object.fromEntries(names.map((name) => [name, "v2"])), "created.txt": "new" });
  const outcome = await store.write([...before]);
  assertEquals(outcome.written.sort(), [...names].sort());
  assertEquals(outcome.removed, ["created.txt"]);
  for (const name of names) assertEquals(t.read(name), "line one\r\nline two\n$Id$\n", name);
  assertEquals(t.read("created.txt"), undefined);
});

Deno.test("ShadowStore.write() replaces a link standing where a file goes, never writing through", async () => {
  await using t = await temp({ "a.txt": "mine\n" });
  const outside = join(t.root, "outside.txt");
  Deno.writeTextFileSync(outside, "outside\n");
  const store = await open(t);
  const before = await store.read(["a.txt"]);
  Deno.removeSync(join(t.workspace, "a.txt"));
  Deno.symlinkSync(outside, join(t.workspace, "a.txt"));
  await store.write([...before]);
  assertEquals(Deno.readTextFileSync(outside), "outside\n");
  assert(Deno.lstatSync(join(t.workspace, "a.txt")).isFile);
  assertEquals(t.read("a.txt"), "mine\n");
});

Deno.test("attack: ShadowStore.write() refuses paths that leave the workspace or enter .git", async () => {
  await using t = await temp({ "a.txt": "a" });
  const outside = join(t.root, "outside");
  Deno.mkdirSync(outside);
  Deno.writeTextFileSync(join(outside, "v.txt"), "keep");
  Deno.symlinkSync(outside, join(t.workspace, "src"));
  const store = await open(t);
  const content = (await store.read(["a.txt"])).get("a.txt")!;
  const outcome = await store.write([
    ["../outside/v.txt", "absent"],
    [join(outside, "v.txt"), "absent"],
    ["src/v.txt", "absent"],
    ["src/v.txt", content],
    [".git/hooks/pre-commit", content],
    ["a/../../outside/v.txt", content],
  ]);
  assertEquals([outcome.written, outcome.removed], [[], []]);
  assertEquals(outcome.refused.length, 6);
  assertEquals(Deno.readTextFileSync(join(outside, "v.txt")), "keep");
  assertEquals(await Deno.stat(join(t.workspace, ".git")).then(() => true, () => false), false);
});

Deno.test("ShadowStore.keeper.keep() makes a turn's blobs reachable from the owner's ref", async () => {
  await using t = await temp({ "a.txt": "kept text" });
  const store = await open(t);
  const states = await store.read(["a.txt"]);
  assert(await store.keeper.keep(states.values()));
  const out = new Deno.Command("git", {
    args: [`--git-dir=${t.gitDir}`, "ls-tree", "-r", "refs/harness/s1"],
    stdout: "piped",
  }).outputSync();
  assert(new TextDecoder().decode(out.stdout).includes(states.get("a.txt")!.slice(7)));
});

// --- A hostile workspace: nothing in it may make git run a program. ---

async function gitIn(dir: string, ...args: string[]) {
  const out = await new Deno.Command("git", { args, cwd: dir, stdout: "null", stderr: "null" })
    .output();
  assert(out.success, `git ${args.join(" ")}`);
}

Deno.test("attack: the workspace's own .git config (fsmonitor, hooks, filters) runs nothing", async () => {
  await using t = await temp({ "a.txt": "x", ".gitattributes": "* filter=evil diff=evil\n" });
  await gitIn(t.workspace, "init", "-q");
  await gitIn(t.workspace, "config", "core.fsmonitor", t.evil);
  await gitIn(t.workspace, "config", "core.hooksPath", t.root);
  await gitIn(t.workspace, "config", "filter.evil.clean", t.evil);
  await gitIn(t.workspace, "config", "filter.evil.smudge", t.evil);
  await gitIn(t.workspace, "config", "filter.evil.process", t.evil);
  Deno.copyFileSync(t.evil, join(t.workspace, ".git/hooks/post-checkout"));
  const store = await open(t);
  const before = await store.read(["a.txt", "b.txt"]);
  t.write({ "a.txt": "y", "b.txt": "z" });
  await store.write([...before]);
  assertEquals(t.ran(), false);
  assertEquals([t.read("a.txt"), t.read("b.txt")], ["x", undefined]);
});

Deno.test("attack: a nested repository's fsmonitor and a user's global config run nothing", async () => {
  await using t = await temp({ "a.txt": "x" });
  const nested = join(t.workspace, "sub");
  Deno.mkdirSync(nested);
  await gitIn(nested, "init", "-q");
  Deno.writeTextFileSync(join(nested, "f"), "f");
  await gitIn(nested, "config", "core.fsmonitor", t.evil);
  const home = join(t.root, "home");
  Deno.mkdirSync(join(home, ".config", "git"), { recursive: true });
  const global = `[core]\n\tfsmonitor = ${t.evil}\n[filter "x"]\n\tclean = ${t.evil}\n`;
  Deno.writeTextFileSync(join(home, ".gitconfig"), global);
  Deno.writeTextFileSync(join(home, ".config", "git", "attributes"), "* filter=x\n");
  // The user's environment points git at both: it runs in a process of its own, since test
  // files share one process's environment while they run side by side.
  const script = join(t.root, "attack.ts");
  Deno.writeTextFileSync(
    script,
    `import { ShadowStore } from ${
      JSON.stringify(import.meta.resolve("../../src/checkpoints/shadow_store.ts"))
    };
const [workspace, gitDir] = Deno.args;
const store = await ShadowStore.open({
  git: "git", workspace, gitDir, owner: "s1", maxFileBytes: 1024,
  access: { mayRead: () => true, mayWrite: () => true },
});
const before = await store.read(["a.txt", "sub/f"]);
Deno.writeTextFileSync(workspace + "/a.txt", "y");
Deno.writeTextFileSync(workspace + "/sub/f", "changed");
await store.write([...before]);
Deno.exit(0);
`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", script, t.workspace, t.gitDir],
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      DENO_DIR: await currentDenoDir(),
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='${t.evil}'`,
    },
    stdin: "null",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  assertEquals(t.ran(), false);
  assertEquals(t.read("sub/f"), "f");
});

Deno.test("attack: a hook or config planted in the shadow repository is wiped when it opens", async () => {
  await using t = await temp({ "a.txt": "x" });
  await (await open(t)).close();
  Deno.copyFileSync(t.evil, join(t.gitDir, "hooks", "post-checkout"));
  Deno.writeTextFileSync(
    join(t.gitDir, "config"),
    `[core]\n\tfsmonitor = ${t.evil}\n\thooksPath = ${t.root}\n`,
  );
  const store = await open(t);
  const before = await store.read(["a.txt"]);
  t.write({ "a.txt": "y" });
  await store.write([...before]);
  assertEquals(t.ran(), false);
  assertEquals(t.read("a.txt"), "x");
});
