// --deny-read applied to commands (issue 26, item 1), through the real ToolHost: run_command
// and a plugin's ctx.spawn must not read a denied file or folder, inside or outside the
// workspace, by name or through a symbolic link, nor a denied entry that is itself a link.
// Needs bubblewrap (fails without it, so a missing sandbox is never a silent pass).

import { ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { sandboxHost } from "../../helpers/sandbox_host.ts";

const linux = Deno.build.os === "linux";

const SECRETS = (ws: string) => ({
  [join(ws, ".env")]: "API_KEY=env-secret\n",
  [join(ws, "secrets", "key.pem")]: "pem-secret\n",
  [join(ws, "README.md")]: "readme-visible\n",
});

Deno.test({
  name: "run_command cannot read a --deny-read file or folder inside the workspace",
  ignore: !linux,
  async fn() {
    await using s = await sandboxHost(
      ({ workspace }) => [
        `--allow-read=${workspace}`,
        `--allow-write=${workspace}`,
        "--allow-run",
        "--deny-read=.env,secrets",
      ],
      { files: ({ workspace }) => SECRETS(workspace) },
    );
    const result = await s.call("run_command", {
      command: 'cat .env secrets/key.pem README.md; echo "listed: $(ls secrets | wc -l)"',
    });
    const data = String(result.data ?? result.error_message);
    assert(!data.includes("env-secret"), data);
    assert(!data.includes("pem-secret"), data);
    assert(data.includes("listed: 0"), data);
    assert(data.includes("readme-visible"), data);
  },
});

Deno.test({
  name: "run_command cannot read a --deny-read path through a symbolic link or a linked entry",
  ignore: !linux,
  async fn() {
    await using s = await sandboxHost(
      ({ workspace, outside }) => [
        `--allow-read=${workspace},${outside}`,
        `--allow-write=${workspace}`,
        "--allow-run",
        // `vault` is a link to a folder outside; the entry names the link.
        "--deny-read=.env,vault",
      ],
      {
        files: ({ workspace, outside }) => ({
          ...SECRETS(workspace),
          [join(outside, "vault", "token")]: "vault-secret\n",
        }),
        setup: async ({ workspace, outside }) => {
          await Deno.symlink(join(workspace, ".env"), join(workspace, "alias"));
          await Deno.symlink(join(outside, "vault"), join(workspace, "vault"));
        },
      },
    );
    const result = await s.call("run_command", {
      command: `cat alias vault/token ${s.outside}/vault/token; ln -s .env again; cat again`,
    });
    const data = String(result.data ?? result.error_message);
    assert(!data.includes("env-secret"), data);
    assert(!data.includes("vault-secret"), data);
  },
});

Deno.test({
  name: "run_command with -R cannot read a --deny-read folder outside the workspace",
  ignore: !linux,
  async fn() {
    await using s = await sandboxHost(
      ({ workspace, outside }) => [
        "-R",
        `--allow-write=${workspace}`,
        "--allow-run",
        `--deny-read=${join(outside, ".ssh")}`,
      ],
      {
        files: ({ outside }) => ({ [join(outside, ".ssh", "id_ed25519")]: "ssh-secret\n" }),
        // Not under /tmp, which commands see as their own empty folder.
        outsideParent: "/var/tmp",
      },
    );
    const result = await s.call("run_command", {
      command: `cat ${join(s.outside, ".ssh", "id_ed25519")}; ls ${join(s.outside, ".ssh")}`,
    });
    const data = String(result.data ?? result.error_message);
    assert(!data.includes("ssh-secret"), data);
    assert(!data.includes("\nid_ed25519\n"), data);
  },
});

Deno.test({
  name: "a plugin's ctx.spawn cannot read a --deny-read file inside its grant",
  ignore: !linux,
  async fn() {
    await using s = await sandboxHost(
      ({ workspace }) => [
        `--allow-read=${workspace}`,
        "--allow-run",
        "--deny-read=.env,secrets",
      ],
      {
        files: ({ workspace }) => SECRETS(workspace),
        builtins: [],
        plugins: {
          "spawn_cat.ts": `export default ({ z, defineTool }) => defineTool({
  name: "spawn_cat",
  description: "Reads files with cat through ctx.spawn.",
  risk: "safe",
  parameters: z.object({}),
  permissions: { read: ["."], run: ["cat"] },
  async run(_args, ctx) {
    const out = await ctx.spawn("cat", { args: [".env", "secrets/key.pem", "README.md"] }).output();
    return { output: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) };
  },
});
`,
        },
      },
    );
    const result = await s.call("spawn_cat", {});
    const data = String(result.data ?? result.error_message);
    assert(!data.includes("env-secret"), data);
    assert(!data.includes("pem-secret"), data);
    assert(data.includes("readme-visible"), data);
  },
});
