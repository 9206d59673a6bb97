// namedPaths: what a stdio server's entry names and its command sandbox therefore reads: the
// program found on PATH (its folder, where its links lead, its `#!` interpreter), the files
// its arguments name with their package and node_modules, never the root or the home folder.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { namedPaths } from "../../src/mcp/server_paths.ts";

async function tree(files: Record<string, string>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_paths_" }));
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
  return root;
}

Deno.test("namedPaths: a program on PATH outside the system folders, its links and its #!", async () => {
  // As nvm lays out node and npx: bin/npx -> ../lib/node_modules/npm/bin/npx-cli.js
  const root = await tree({
    "node/lib/node_modules/npm/package.json": "{}",
    "node/lib/node_modules/npm/bin/npx-cli.js": "#!/usr/bin/env node\n",
    "node/bin/node": "",
  });
  try {
    await Deno.chmod(join(root, "node/bin/node"), 0o755);
    await Deno.chmod(join(root, "node/lib/node_modules/npm/bin/npx-cli.js"), 0o755);
    await Deno.symlink("../lib/node_modules/npm/bin/npx-cli.js", join(root, "node/bin/npx"));
    const paths = namedPaths({ command: "npx", args: ["-y", "pkg"] }, {
      cwd: root,
      env: { PATH: `${join(root, "node/bin")}:/usr/bin`, HOME: "/nonexistent" },
    });
    // node's prefix lib/ holds npm and the global packages (the interpreter's rule covers both).
    assertEquals(paths.sort(), [join(root, "node/bin"), join(root, "node/lib")]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("namedPaths: a script argument brings its package and the node_modules above it", async () => {
  const root = await tree({
    "repo/package.json": "{}",
    "repo/node_modules/dep/index.js": "",
    "repo/servers/fs/package.json": "{}",
    "repo/servers/fs/dist/index.js": "",
    "loose/server.py": "",
    "data/notes.md": "",
  });
  try {
    const paths = namedPaths({
      command: "node",
      args: [
        join(root, "repo/servers/fs/dist/index.js"),
        `--root=${join(root, "data")}`,
        "stdio",
        "@scope/name",
      ],
    }, { cwd: root, env: { PATH: "/usr/bin", HOME: "/nonexistent" } });
    assertEquals(paths, [
      join(root, "repo/servers/fs"),
      join(root, "repo/node_modules"),
      join(root, "data"),
    ]);
    const python = namedPaths({ command: "python3", args: ["./loose/server.py"] }, {
      cwd: root,
      env: { PATH: "/usr/bin", HOME: "/nonexistent" },
    });
    assertEquals(python, [join(root, "loose/server.py")]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("namedPaths: an installed package is read from its outermost node_modules", async () => {
  const root = await tree({
    "node_modules/@mcp/server/package.json": "{}",
    "node_modules/@mcp/server/dist/index.js": "",
  });
  try {
    const paths = namedPaths({
      command: "node",
      args: [join(root, "node_modules/@mcp/server/dist/index.js")],
    }, { cwd: "/", env: { PATH: "/usr/bin" } });
    assertEquals(paths, [join(root, "node_modules")]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("namedPaths never opens the root, the home folder or a folder above it", async () => {
  const home = await tree({ "server.js": "", "notes/a.md": "" });
  try {
    const paths = namedPaths({
      command: "node",
      args: ["/", home, "~/server.js", "~/notes", "/usr/lib", join(home, "..")],
    }, { cwd: home, env: { PATH: "/usr/bin", HOME: home } });
    // The file directly in home is read alone; the folder inside it is fine.
    assertEquals(paths, [join(home, "server.js"), join(home, "notes")]);
    assert(!paths.includes(home));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("namedPaths: a script whose #! names a Python under a prefix reads its library", async () => {
  // As uv installs a tool: a venv whose python links to a managed Python with lib/ beside bin/.
  const root = await tree({
    "python/bin/python3.12": "",
    "python/lib/python3.12/os.py": "",
    "tools/srv/pyvenv.cfg": "home = x\n",
    "tools/srv/bin/mcp-server": "",
  });
  try {
    await Deno.chmod(join(root, "python/bin/python3.12"), 0o755);
    await Deno.symlink(join(root, "python/bin/python3.12"), join(root, "tools/srv/bin/python"));
    await Deno.writeTextFile(
      join(root, "tools/srv/bin/mcp-server"),
      `#!${join(root, "tools/srv/bin/python")}\n`,
    );
    await Deno.chmod(join(root, "tools/srv/bin/mcp-server"), 0o755);
    const paths = namedPaths({ command: join(root, "tools/srv/bin/mcp-server") }, {
      cwd: root,
      env: { PATH: "/usr/bin", HOME: "/nonexistent" },
    });
    assertEquals(paths.sort(), [
      join(root, "python/bin/python3.12"),
      join(root, "python/lib"),
      join(root, "tools/srv"),
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
