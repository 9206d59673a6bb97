// Plan mode is enforced by the sandbox, not the prompt (issue 41): with the grants narrowed by
// planModeGrants and the workspace mounted as a throwaway overlay (or read-only where
// bubblewrap has none), 0 of 50 writes a model might try persist (sed -i, redirection, git
// commit, a script's open-for-write, a package install, ...), while 20 of 20 read and test
// commands succeed. A control run with the user's own grants shows the same writes are real.
// Needs bubblewrap and git.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { type SandboxHost, sandboxHost } from "../../helpers/sandbox_host.ts";
import { hasCommand } from "../../helpers/system_commands.ts";
import { planModeGrants } from "../../../src/sandbox/grants/plan_mode_grants.ts";
import { PLAN_READS, PLAN_WRITES, planWorkspace } from "../../fixtures/plan_mode_commands.ts";

const HOME = Deno.env.get("HOME");
const ready = Deno.build.os === "linux" && hasCommand("bwrap") && hasCommand("git") &&
  hasCommand("node") && hasCommand("npm");

/** Every entry under `root`: kind, mode, size, mtime and content, so any change shows. */
async function snapshot(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      const info = await Deno.lstat(path);
      const content = info.isFile ? new TextDecoder().decode(await Deno.readFile(path)) : "";
      const link = info.isSymlink ? await Deno.readLink(path) : "";
      const mtime = info.isDirectory ? "" : String(info.mtime?.getTime());
      out.set(path, [info.mode, info.size, mtime, link, content].join("|"));
      if (info.isDirectory) await walk(path);
    }
  };
  await walk(root);
  return out;
}

function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => before.get(key) !== after.get(key));
}

/** A workspace (a git repository with sources, tests and a local package) under `flags`. */
function planHost(
  plan: boolean,
  flags: "all" | "workspace",
  extra: string[] = [],
): Promise<SandboxHost> {
  return sandboxHost(
    ({ workspace }) => [
      ...(flags === "all"
        ? ["--allow-read", "--allow-write", "--allow-run"]
        : [`--allow-read=${workspace}`, `--allow-write=${workspace}`, "--allow-run"]),
      ...extra.map((flag) => flag.replace("$WS", workspace)),
    ],
    {
      builtins: ["run_command", "write_file"],
      // The strongest case: the user lets commands commit; plan mode still keeps nothing.
      writableGit: true,
      outsideParent: "/var/tmp",
      files: planWorkspace.files,
      setup: planWorkspace.setup,
      ...(plan
        ? {
          narrow: (grants, { workspace }) =>
            planModeGrants(grants, {
              planFolder: join(workspace, "plans"),
              workspace,
              ...(HOME ? { home: HOME } : {}),
            }),
        }
        : {}),
    },
  );
}

async function run(s: SandboxHost, command: string): Promise<string> {
  const result = await s.call("run_command", {
    command: command.replaceAll("$OUTSIDE", s.outside),
  });
  return String(result.data ?? result.error_message);
}

/** Runs every write attempt; returns those whose change persisted, with what they printed. */
async function persisted(s: SandboxHost): Promise<string[]> {
  const found: string[] = [];
  for (const command of PLAN_WRITES) {
    const before = new Map([...await snapshot(s.workspace), ...await snapshot(s.outside)]);
    const out = await run(s, command);
    const after = new Map([...await snapshot(s.workspace), ...await snapshot(s.outside)]);
    const changed = changes(before, after);
    if (changed.length > 0) found.push(`${command}: ${changed.join(", ")}: ${out.slice(0, 200)}`);
  }
  return found;
}

for (const flags of ["all", "workspace"] as const) {
  Deno.test({
    name: `plan mode: 0 of ${PLAN_WRITES.length} writes persist (flags: ${flags})`,
    ignore: !ready,
    async fn() {
      assertEquals(PLAN_WRITES.length, 50);
      await using s = await planHost(true, flags);
      assertEquals(await persisted(s), []);
    },
  });
}

Deno.test({
  name: "without plan mode the same writes persist (the attacks are real)",
  ignore: !ready,
  async fn() {
    await using s = await planHost(false, "all");
    const found = await persisted(s);
    // Protected paths (.git/config, .harness) stay read-only in every mode; the rest change.
    assert(found.length >= 45, `only ${found.length} of 50 changed:\n${found.join("\n")}`);
  },
});

for (const flags of ["all", "workspace"] as const) {
  Deno.test({
    name:
      `plan mode: ${PLAN_READS.length} of ${PLAN_READS.length} read and test commands succeed (flags: ${flags})`,
    ignore: !ready,
    async fn() {
      assertEquals(PLAN_READS.length, 20);
      await using s = await planHost(true, flags);
      const failed: string[] = [];
      for (const [command, expected] of PLAN_READS) {
        const out = await run(s, command);
        if (!out.includes("exit_code: 0") || !out.includes(expected)) {
          failed.push(`${command}: ${out.slice(0, 300)}`);
        }
      }
      assertEquals(failed, []);
    },
  });
}

Deno.test({
  name: "plan mode: write_file may write the plan folder and nothing else",
  ignore: !ready,
  async fn() {
    await using s = await planHost(true, "all");
    const plan = await s.call("write_file", { path: "plans/plan.md", content: "1. read\n" });
    assertEquals(plan.success, true, JSON.stringify(plan));
    for (const path of ["README.md", "src/new.ts", "plans/../README.md"]) {
      const result = await s.call("write_file", { path, content: "x\n" });
      assertEquals(result.error_type, "permission_denied", `${path}: ${JSON.stringify(result)}`);
    }
    assertEquals(await Deno.readTextFile(join(s.workspace, "README.md")), "hello world\n");
  },
});

/** Whether bubblewrap can mount plan mode's throwaway overlay here (0.9 or later). */
async function overlayWorks(): Promise<boolean> {
  if (!ready) return false;
  const { probeCommandSandbox, withScratch } = await import(
    "../../../src/sandbox/commands/command_sandbox_probe.ts"
  );
  const { emptyGrants } = await import("../../../src/sandbox/grants/grants.ts");
  const dir = await Deno.makeTempDir({ dir: "/var/tmp" });
  try {
    const sandbox = await probeCommandSandbox("auto", {
      grants: emptyGrants(),
      env: Deno.env.toObject(),
    });
    return (await withScratch(sandbox, [dir])).scratch?.overlay === true;
  } finally {
    await Deno.remove(dir);
  }
}

const overlay = await overlayWorks();

Deno.test({
  name: "plan mode with an overlay: builds, installs and caches write, and nothing persists",
  ignore: !overlay,
  async fn() {
    await using s = await planHost(true, "all");
    const before = await snapshot(s.workspace);
    const builds: [string, string][] = [
      ["make build", "built"],
      ["npm install --offline --no-audit --no-fund ./pkg && ls node_modules", "localpkg"],
      [
        `echo x >> README.md && git -c user.name=t -c user.email=t@t commit -qam x && git log --oneline | wc -l`,
        "2",
      ],
    ];
    const probe = HOME ? join(HOME, `.harness_plan_probe_${Deno.pid}`) : undefined;
    if (probe) builds.push([`touch ${probe} && ls ${probe}`, probe]);
    try {
      for (const [command, expected] of builds) {
        const out = await run(s, command);
        assert(out.includes("exit_code: 0") && out.includes(expected), `${command}: ${out}`);
      }
      assertEquals(changes(before, await snapshot(s.workspace)), []);
      if (probe) assert(!await Deno.lstat(probe).then(() => true, () => false), "home kept it");
    } finally {
      if (probe) await Deno.remove(probe).catch(() => {});
    }
  },
});

Deno.test({
  name: "plan mode keeps --deny-read: a command cannot read a hidden file through the overlay",
  ignore: !ready,
  async fn() {
    await using s = await planHost(true, "all", ["--deny-read=$WS/.env"]);
    await Deno.writeTextFile(join(s.workspace, ".env"), "SECRET=hunter2\n");
    const out = await run(s, "cat .env; echo x > .env; cat .env");
    assert(!out.includes("hunter2"), out);
    assertEquals(await Deno.readTextFile(join(s.workspace, ".env")), "SECRET=hunter2\n");
  },
});
