// ToolHost.preview(): what a file-changing call would write, worked out by the tool in its own
// sandbox. The preview writes nothing, equals what the call then writes, and gives no diff for
// a path the tool would refuse (outside the workspace, --deny-read) nor leaks such a file.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { openLoopHost } from "../../helpers/loop_host.ts";
import { sandboxHost } from "../../helpers/sandbox_host.ts";

const GRANTS = ["--allow-read=.", "--allow-write=."];

async function validated(
  host: { validate: (n: string, a: unknown) => Promise<unknown> },
  name: string,
  args: unknown,
) {
  const result = await host.validate(name, args) as {
    ok: boolean;
    value?: unknown;
    error?: unknown;
  };
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

const CALLS: [string, Record<string, unknown>][] = [
  ["edit_file", { path: "a.txt", old_string: "beta", new_string: "BETA two" }],
  ["replace_lines", { path: "a.txt", line_start: 2, line_end: 3, new_content: "B\nC\nD" }],
  ["insert_lines", { path: "a.txt", line_start: 1, new_content: "zero" }],
  ["write_file", { path: "a.txt", content: "all new\n" }],
];

for (const [tool, args] of CALLS) {
  Deno.test(`ToolHost.preview() of ${tool} is exactly what the call then writes, and writes nothing`, async () => {
    await using loop = await openLoopHost({
      builtins: true,
      grants: GRANTS,
      files: { "a.txt": "alpha\nbeta\ngamma\n" },
    });
    const file = join(loop.workspace, "a.txt");
    const value = await validated(loop.host, tool, args);
    const preview = await loop.host.preview(tool, value, {});
    assert(preview && "change" in preview, JSON.stringify(preview));
    assertEquals(preview.change.before, "alpha\nbeta\ngamma\n");
    assertEquals(await Deno.readTextFile(file), "alpha\nbeta\ngamma\n");
    const run = await loop.host.run(tool, value, { state: {} });
    assert(run.result.success, JSON.stringify(run.result));
    assertEquals(await Deno.readTextFile(file), preview.change.after);
    assert(/ \+\d+ -\d+$/.test(run.display ?? ""), run.display);
  });
}

Deno.test("ToolHost.preview() of a new file has no before; a tool without a preview gives none", async () => {
  await using loop = await openLoopHost({ builtins: true, grants: GRANTS });
  const value = await validated(loop.host, "write_file", { path: "new/b.md", content: "# B\n" });
  assertEquals(await loop.host.preview("write_file", value), {
    change: { path: "new/b.md", before: null, after: "# B\n" },
  });
  const read = await validated(loop.host, "read_file", { path: "x" });
  assertEquals(await loop.host.preview("read_file", read), undefined);
  assertEquals(await loop.host.preview("no_such_tool", {}), undefined);
});

Deno.test("ToolHost.preview() says why an edit would fail instead of showing a diff", async () => {
  await using loop = await openLoopHost({
    builtins: true,
    grants: GRANTS,
    files: { "a.txt": "alpha\n" },
  });
  const value = await validated(loop.host, "edit_file", {
    path: "a.txt",
    old_string: "nowhere",
    new_string: "x",
  });
  const preview = await loop.host.preview("edit_file", value);
  assert(preview && "error" in preview && preview.error.startsWith("old_string was not found"));
});

Deno.test("ToolHost.preview() attack: no diff of a file outside the workspace or under --deny-read", async () => {
  await using loop = await openLoopHost({
    builtins: true,
    grants: [...GRANTS, "--deny-read=.env"],
    files: { ".env": "API_KEY=hunter2\n" },
  });
  const outside = await validated(loop.host, "write_file", {
    path: "../../etc/passwd",
    content: "x",
  });
  const escaped = await loop.host.preview("write_file", outside);
  assert(escaped && "error" in escaped, JSON.stringify(escaped));
  const env = await validated(loop.host, "edit_file", {
    path: ".env",
    old_string: "hunter2",
    new_string: "x",
  });
  const denied = await loop.host.preview("edit_file", env);
  assert(denied && "error" in denied, JSON.stringify(denied));
  assert(denied.error.includes("read access"), denied.error);
  assert(!JSON.stringify(denied).includes("hunter2"));
  const write = await validated(loop.host, "write_file", { path: ".env", content: "x" });
  const overwrite = await loop.host.preview("write_file", write);
  assert(overwrite && "error" in overwrite, JSON.stringify(overwrite));
  assertEquals(await Deno.readTextFile(join(loop.workspace, ".env")), "API_KEY=hunter2\n");
});

Deno.test({
  name: "ToolHost.preview() attack: a link out of the workspace gives no diff of its target",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using loop = await openLoopHost({ builtins: true, grants: GRANTS });
    const secret = await Deno.makeTempFile();
    try {
      await Deno.writeTextFile(secret, "TOP SECRET\n");
      await Deno.symlink(secret, join(loop.workspace, "link.txt"));
      const value = await validated(loop.host, "write_file", { path: "link.txt", content: "x" });
      const preview = await loop.host.preview("write_file", value);
      assert(preview && "error" in preview, JSON.stringify(preview));
      assert(!JSON.stringify(preview).includes("TOP SECRET"));
    } finally {
      await Deno.remove(secret);
    }
  },
});

Deno.test("ToolHost.preview() attack: no diff of a write the tool would refuse (.git, --deny-write, no write grant)", async () => {
  // .git is read-only for tools (sandbox_worker.ts toolReadOnly): the preview says why, as
  // the call would fail, instead of showing a change the user cannot make by approving.
  await using git = await sandboxHost(
    ({ workspace }) => [
      `--allow-read=${workspace}`,
      `--allow-write=${workspace}`,
      `--deny-write=${join(workspace, "locked.txt")}`,
    ],
    {
      builtins: ["write_file"],
      files: ({ workspace }) => ({
        [join(workspace, ".git", "config")]: "[core]\n",
        [join(workspace, "locked.txt")]: "keep\n",
      }),
    },
  );
  for (const path of [".git/config", ".git/hooks/post-checkout", "locked.txt"]) {
    const value = await validated(git.host, "write_file", { path, content: "x\n" });
    const preview = await git.host.preview("write_file", value);
    assert(preview && "error" in preview, `${path}: ${JSON.stringify(preview)}`);
    const run = await git.call("write_file", { path, content: "x\n" });
    assertEquals(run.error_type, "permission_denied", JSON.stringify(run));
  }
  const readme = await validated(git.host, "write_file", { path: "README.md", content: "ok\n" });
  const allowed = await git.host.preview("write_file", readme);
  assert(allowed && "change" in allowed, JSON.stringify(allowed));
  // Read-only grants: a change the sandbox cannot write has no diff either.
  await using readOnly = await openLoopHost({
    builtins: true,
    grants: ["--allow-read=.", "--allow-write=sub"],
    files: { "a.txt": "alpha\n" },
  });
  const edit = await validated(readOnly.host, "edit_file", {
    path: "a.txt",
    old_string: "alpha",
    new_string: "beta",
  });
  const refused = await readOnly.host.preview("edit_file", edit);
  assert(refused && "error" in refused, JSON.stringify(refused));
  assert(refused.error.includes("--allow-write"), refused.error);
});
