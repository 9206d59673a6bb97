// CommandBaseline on real folders, with the watcher and without it (a scan after each
// command): what changed while a "command" ran (changes made between begin and end) comes back
// with its state before and after; a file someone changed before the command is not the
// command's; a file git ignored is never "absent" before (nothing would delete it); the scope,
// nested repositories and the size limit hold.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { ShadowStore } from "../../src/checkpoints/shadow_store.ts";
import { CommandBaseline, type CommandChange } from "../../src/checkpoints/command_baseline.ts";

async function setup(
  files: Record<string, string>,
  options: { watch: boolean; scope?: string[] },
) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_baseline_" }));
  const workspace = join(root, "work");
  const write = (more: Record<string, string>) => {
    for (const [path, text] of Object.entries(more)) {
      Deno.mkdirSync(join(workspace, path, ".."), { recursive: true });
      Deno.writeTextFileSync(join(workspace, path), text);
    }
  };
  Deno.mkdirSync(workspace);
  write(files);
  const store = await ShadowStore.open({
    git: "git",
    workspace,
    gitDir: join(root, "git"),
    owner: "s1",
    maxFileBytes: 1024,
    access: { mayRead: (path) => !path.endsWith("secret"), mayWrite: () => true },
  });
  const baseline = new CommandBaseline({
    store,
    watch: options.watch,
    ...(options.scope ? { scope: options.scope } : {}),
  });
  return {
    workspace,
    write,
    baseline,
    remove: (path: string) => Deno.removeSync(join(workspace, path), { recursive: true }),
    /** Runs `change` as a command would, between begin and end. */
    async command(change: () => void | Promise<void>): Promise<CommandChange[]> {
      const window = await baseline.begin();
      await change();
      return await baseline.end(window);
    },
    async [Symbol.asyncDispose]() {
      await baseline.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** Path -> [before kind, after kind]: "content", "absent", or the unknown state's word. */
function kinds(changes: readonly CommandChange[]): Record<string, [string, string]> {
  const kind = (state: string) => /^\d{6} /.test(state) ? "content" : state;
  return Object.fromEntries(changes.map((c) => [c.path, [kind(c.before), kind(c.after)]]));
}

for (const watch of [true, false]) {
  const mode = watch ? "watching" : "scanning";
  const ignore = watch && Deno.build.os !== "linux";

  Deno.test({
    name: `CommandBaseline (${mode}): a command's changes, each before and after`,
    ignore,
    async fn() {
      await using t = await setup({ "a.txt": "a", "b.txt": "b", "keep.txt": "k" }, { watch });
      const changes = await t.command(() => {
        t.write({ "a.txt": "a2", "src/new.ts": "n" });
        t.remove("b.txt");
      });
      assertEquals(kinds(changes), {
        "a.txt": ["content", "content"],
        "b.txt": ["content", "absent"],
        "src/new.ts": ["absent", "content"],
      });
    },
  });

  Deno.test({
    name: `CommandBaseline (${mode}): an edit made before the command is not the command's`,
    ignore,
    async fn() {
      await using t = await setup({ "a.txt": "a", "b.txt": "b" }, { watch });
      await t.command(() => t.write({ "a.txt": "a2" }));
      t.write({ "b.txt": "user's edit" }); // between two commands
      const changes = await t.command(() => t.write({ "c.txt": "c" }));
      assertEquals(Object.keys(kinds(changes)), ["c.txt"]);
    },
  });

  Deno.test({
    name: `CommandBaseline (${mode}): a rewritten .gitignore never makes an ignored file "absent"`,
    ignore,
    async fn() {
      await using t = await setup({
        ".gitignore": "/.env\ndata/\n",
        ".env": "TOKEN=1",
        "data/rows.csv": "1,2",
      }, { watch });
      await t.command(() => {});
      // The files' birth times lie well before the command (as a user's files do).
      const born = Deno.statSync(`${t.workspace}/.env`).birthtime?.getTime() ?? 0;
      while (Date.now() < born + 30) await new Promise((done) => setTimeout(done, 5));
      const changes = await t.command(() => {
        t.write({ ".gitignore": "node_modules/\n" });
        t.write({ ".env": "TOKEN=2" }); // uncovered and changed in the same command
      });
      const found = kinds(changes);
      assertEquals(found[".gitignore"], ["content", "content"]);
      assertEquals(found[".env"], ["ignored", "content"]);
      assertEquals(found["data/rows.csv"], undefined, "untouched: not the command's");
    },
  });

  Deno.test({
    name: `CommandBaseline (${mode}): scope, nested repositories, size and read limits hold`,
    ignore,
    async fn() {
      await using t = await setup({ "src/a.ts": "a", "docs/b.md": "b" }, {
        watch,
        scope: ["src"],
      });
      Deno.mkdirSync(join(t.workspace, "src/vendor"), { recursive: true });
      await new Deno.Command("git", { args: ["init", "-q"], cwd: join(t.workspace, "src/vendor") })
        .output();
      const changes = await t.command(() => {
        t.write({
          "src/a.ts": "a2",
          "docs/b.md": "b2",
          "src/vendor/lib.c": "int x;",
          "src/big.bin": "x".repeat(5000),
          "src/secret": "s",
        });
      });
      assertEquals(kinds(changes), {
        "src/a.ts": ["content", "content"],
        "src/big.bin": ["absent", "oversize"],
      });
    },
  });
}

Deno.test({
  name: "CommandBaseline: a command's changes come back without a scan of the tree",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`m${i % 10}/f${i}.ts`] = String(i);
    await using t = await setup(files, { watch: true });
    await t.command(() => {}); // the first reading
    const started = performance.now();
    const changes = await t.command(() => t.write({ "m3/f3.ts": "changed" }));
    assertEquals(Object.keys(kinds(changes)), ["m3/f3.ts"]);
    assert(performance.now() - started < 5000);
  },
});
