// The host's search processes (SearchService) as the sandbox boundary they are: only the
// built-in grep_search and glob get a port, a request is a description (never a command line)
// and anything else is refused, --deny-read paths stay unread, and through the real ToolHost
// the answer is the built-in search's, skipped paths and all.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";
import { discoverPlugins } from "../../../src/plugin_loader/load_plugins.ts";
import {
  findProgram,
  probeCommandSandbox,
} from "../../../src/sandbox/commands/command_sandbox_probe.ts";
import { effectivePermissions } from "../../../src/sandbox/grants/effective_permissions.ts";
import { SearchService } from "../../../src/sandbox/processes/search_service.ts";
import { createToolHost, type ToolHost } from "../../../src/sandbox/workers/tool_host.ts";
import type { SearchReply } from "../../../src/tools/search/search_protocol.ts";
import { grepWithRg } from "../../../src/tools/search/rg_grep.ts";
import { SearchClient } from "../../../src/tools/search/search_client.ts";
import { buildSearchTree } from "../../helpers/search_tree.ts";
import { makeToolContext } from "../../helpers/tool_context.ts";

const BUILTIN = fileURLToPath(new URL("../../../plugins/", import.meta.url));
const HAVE_RG = findProgram("rg", Deno.env.get("PATH")) !== undefined;
const HAVE_FD = findProgram("fd", Deno.env.get("PATH")) !== undefined ||
  findProgram("fdfind", Deno.env.get("PATH")) !== undefined;
const CONFINED = Deno.build.os === "linux" &&
  (await probeCommandSandbox("auto", { grants: grants(["-R"], "/"), env: Deno.env.toObject() }))
      .confinement.kind === "bwrap";

function grants(flags: string[], cwd: string) {
  const parsed = parseGrantFlags(flags, { cwd });
  if (!parsed.ok) throw new Error(`bad flags ${flags.join(" ")}`);
  return parsed.value.grants;
}

async function hostFor(
  workspace: string,
  flags: string[],
  options: { externalSearch?: boolean; pluginDirs?: string[] } = {},
): Promise<ToolHost> {
  const { files } = await discoverPlugins({
    builtinDir: BUILTIN,
    userDir: null,
    cwd: workspace,
    pluginDirs: options.pluginDirs ?? [],
  });
  const { host, errors } = await createToolHost({
    grants: grants(flags, workspace),
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: files,
    ...(options.externalSearch === false ? { externalSearch: false } : {}),
  });
  assertEquals(errors, []);
  return host;
}

async function call(host: ToolHost, name: string, args: Record<string, unknown>) {
  const valid = await host.validate(name, args);
  if (!valid.ok) throw new Error(valid.error.join("; "));
  return (await host.run(name, valid.value, { state: {} })).result;
}

/** Every reply to one raw request sent on a search port, until it ends. */
async function ask(search: SearchService, workspace: string, request: unknown) {
  const all = grants([`--allow-read=${workspace}`], workspace);
  const opened = search.open(effectivePermissions(all, { read: ["."] }, { workspace }));
  const replies: SearchReply[] = [];
  try {
    return await new Promise<SearchReply[]>((settle) => {
      opened.port.onmessage = (event: MessageEvent<SearchReply>) => {
        replies.push(event.data);
        if (event.data.type === "done" || event.data.type === "unavailable") settle(replies);
      };
      opened.port.postMessage(request);
    });
  } finally {
    opened.port.close();
    opened.close();
  }
}

Deno.test({
  name: "the search port refuses what is not a search request: flags, paths out, odd values",
  ignore: !HAVE_RG || !CONFINED,
  async fn() {
    await using ctx = await makeToolContext({ "a.txt": "needle\n" });
    const search = new SearchService({
      grants: grants(["-R"], ctx.workspace),
      workspace: ctx.workspace,
    });
    const grep = {
      type: "grep",
      pattern: "needle",
      caseSensitive: false,
      includeHidden: false,
      respectGitignore: true,
      maxCount: 10,
      sorted: false,
      folder: "",
    };
    try {
      const fine = await ask(search, ctx.workspace, grep);
      assert(fine.some((r) => r.type === "started"), JSON.stringify(fine));
      for (
        const hostile of [
          { ...grep, folder: ".." },
          { ...grep, folder: "../.." },
          { ...grep, folder: "/etc" },
          { ...grep, folder: "a/../../x" },
          { ...grep, pattern: "x\n--pre=sh" },
          { ...grep, maxCount: -1 },
          { ...grep, caseSensitive: "yes" },
          {
            type: "files",
            folder: "",
            includeHidden: false,
            parentIgnores: true,
            extension: "x --exec=sh",
          },
          { type: "run", program: "/bin/sh", args: ["-c", "id"] },
          { type: "grep" },
          null,
        ]
      ) {
        const replies = await ask(search, ctx.workspace, hostile);
        assertEquals(replies.map((r) => r.type), ["unavailable"], JSON.stringify(hostile));
      }
    } finally {
      search.close();
    }
  },
});

Deno.test({
  name: "fd's listing comes back whole, in one message, however many paths it holds",
  ignore: !HAVE_FD || !CONFINED,
  async fn() {
    // glob counts every path: a hundred messages for 38,000 paths cost it more than reading
    // them did. Here 6,000 paths, about 250 KB: many pipe reads, one message.
    await using ctx = await makeToolContext();
    await Deno.mkdir(join(ctx.workspace, ".git")); // fd before 8.7 needs a repository
    const names: string[] = [];
    for (let folder = 0; folder < 20; folder++) {
      await Deno.mkdir(join(ctx.workspace, `folder_${folder}`));
      for (let file = 0; file < 300; file++) {
        const name = `folder_${folder}/a_file_with_a_longer_name_${file}.txt`;
        Deno.writeTextFileSync(join(ctx.workspace, name), "");
        names.push(name);
      }
    }
    const search = new SearchService({
      grants: grants(["-R"], ctx.workspace),
      workspace: ctx.workspace,
    });
    try {
      const replies = await ask(search, ctx.workspace, {
        type: "files",
        folder: "",
        includeHidden: false,
        parentIgnores: true,
      });
      const data = replies.filter((reply) => reply.type === "data");
      assertEquals(data.length, 1, replies.map((reply) => reply.type).join());
      const listed = new TextDecoder().decode(data[0]!.bytes).split("\0").filter(Boolean);
      assertEquals(listed.sort(), names.sort());
    } finally {
      search.close();
    }
  },
});

Deno.test({
  name: "ripgrep through the ToolHost never shows a --deny-read file or folder, and names them",
  ignore: !HAVE_RG || !CONFINED,
  async fn() {
    await using ctx = await makeToolContext();
    await buildSearchTree(ctx.workspace, 200);
    const secret = join(ctx.workspace, "src", "nested", "deeper", "zz_secret.txt");
    await Deno.writeTextFile(secret, "needle: the secret\n");
    const vault = join(ctx.workspace, "pkg", "vault");
    await Deno.mkdir(vault);
    await Deno.writeTextFile(join(vault, "key.txt"), "needle: the vault key\n");
    const flags = [
      `--allow-read=${ctx.workspace}`,
      `--deny-read=${secret}`,
      `--deny-read=${vault}`,
    ];
    const viaRg = await hostFor(ctx.workspace, flags);
    const builtin = await hostFor(ctx.workspace, flags, { externalSearch: false });
    try {
      for (
        const args of [
          { pattern: "the secret" },
          { pattern: "vault key" },
          { pattern: "needle", max_results: 5 },
          { pattern: "needle", file_filter: "*.txt" },
          { pattern: "zzz_absent" },
        ]
      ) {
        const ours = await call(viaRg, "grep_search", args);
        assertEquals(ours, {
          ...await call(builtin, "grep_search", args),
          metadata: ours.metadata,
        });
        assert(!ours.data!.includes("needle: the"), ours.data!);
      }
      const skipped =
        "[Skipped, the sandbox denies reading them: pkg/vault/, src/nested/deeper/zz_secret.txt]";
      assert((await call(viaRg, "grep_search", { pattern: "zzz" })).data!.endsWith(skipped));
      for (const args of [{ pattern: "**/*.txt" }, { pattern: "*", path: "pkg" }]) {
        const ours = await call(viaRg, "glob", args);
        assertEquals(ours, { ...await call(builtin, "glob", args), metadata: ours.metadata });
        assert(!ours.data!.includes("key.txt"), ours.data!);
        assert(ours.data!.endsWith("[Skipped, the sandbox denies reading them: pkg/vault/]"));
      }
      // get_file_tree walks itself, and skips a denied folder the same way.
      const tree = await call(viaRg, "get_file_tree", {});
      assert(!tree.data!.includes("key.txt"), tree.data!);
      assert(tree.data!.includes("[Skipped, the sandbox denies reading them: pkg/vault/]"));
    } finally {
      await viaRg.close();
      await builtin.close();
    }
  },
});

Deno.test("a plugin's call gets no search port, only the built-in grep_search and glob", async () => {
  await using ctx = await makeToolContext();
  const pluginDir = join(ctx.outside, "plugins");
  await Deno.mkdir(pluginDir);
  await Deno.writeTextFile(
    join(pluginDir, "peek.ts"),
    `export default ({ z, defineTool }) => defineTool({
  name: "peek",
  description: "Says whether it was handed a search port.",
  risk: "safe",
  parameters: z.object({}),
  permissions: { read: ["."] },
  run: (_args, ctx) => ({ output: String(ctx.search) }),
});
`,
  );
  const host = await hostFor(ctx.workspace, [`--allow-read=${ctx.workspace}`], {
    pluginDirs: [pluginDir],
  });
  try {
    assertEquals((await call(host, "peek", {})).data, "undefined");
  } finally {
    await host.close();
  }
});

Deno.test({
  name: "where bubblewrap cannot start, grep_search falls back to the built-in search, once",
  ignore: !HAVE_RG || Deno.build.os !== "linux",
  async fn() {
    await using ctx = await makeToolContext({ "a.txt": "needle\n" });
    const bin = join(ctx.outside, "bin");
    await Deno.mkdir(bin);
    // A bubblewrap that fails as it does where user namespaces are off, counting its starts.
    await Deno.writeTextFile(
      join(bin, "bwrap"),
      `#!/bin/sh\necho x >> "${ctx.outside}/starts"\n` +
        'echo "bwrap: No permissions to creating new namespace" >&2\nexit 1\n',
    );
    await Deno.chmod(join(bin, "bwrap"), 0o755);
    const all = grants([`--allow-read=${ctx.workspace}`], ctx.workspace);
    const search = new SearchService({
      grants: all,
      workspace: ctx.workspace,
      env: { PATH: `${bin}:${Deno.env.get("PATH")}` },
    });
    const effective = effectivePermissions(all, { read: ["."] }, { workspace: ctx.workspace });
    const options = {
      pattern: "needle",
      caseSensitive: false,
      maxResults: 10,
      includeHidden: false,
      respectGitignore: true,
    };
    try {
      for (let i = 0; i < 2; i++) {
        const call = search.open(effective);
        assertEquals(
          await grepWithRg(new SearchClient(call.port), ctx.workspace, options),
          undefined,
        );
        call.close();
      }
      assertEquals(
        (await Deno.readTextFile(join(ctx.outside, "starts"))).trim().split("\n").length,
        1,
      );
    } finally {
      search.close();
    }
  },
});
