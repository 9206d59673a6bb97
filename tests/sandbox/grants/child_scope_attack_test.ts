// A child conversation cannot exceed its parent (issue 41): 20 attacks in which a child, with
// an agent file as a hostile repository would write it, tries to write outside its grant, read
// what the parent may not, reach the network, start a process or a tool it was not given, start
// a deeper child, or run without the approvals the parent needs. The child's tools run as
// harness runs them (real workers, bubblewrap), built from childScope's result; 0 of 20 succeed.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { type SandboxHost, sandboxHost } from "../../helpers/sandbox_host.ts";
import { hasCommand } from "../../helpers/system_commands.ts";
import {
  type AgentReach,
  childScope,
  type ChildScopeOptions,
  type Scope,
} from "../../../src/sandbox/grants/child_scope.ts";
import { emptyGrants, type Grants } from "../../../src/sandbox/grants/grants.ts";

const ready = Deno.build.os === "linux" && hasCommand("bwrap") && hasCommand("curl");
const PARENT_TOOLS = ["read_file", "write_file", "run_command", "download_url", "task"];
const KNOWN = new Set([...PARENT_TOOLS, "edit_file", "grep_search"]);

function scopeOptions(workspace: string, maxDepth = 1): ChildScopeOptions {
  return { workspace, maxDepth, known: KNOWN };
}

function parentScope(grants: Grants, autoApprove = false): Scope {
  return { tools: PARENT_TOOLS, grants, depth: 0, autoApprove };
}

/** A host running a child of `agent`; the parent may read and write the workspace only. */
function childHost(agent: AgentReach): Promise<SandboxHost> {
  const tools = childScope(parentScope(emptyGrants()), agent, scopeOptions("/"));
  if (!tools.ok) throw new Error(JSON.stringify(tools.error));
  return sandboxHost(
    ({ workspace }) => [
      `--allow-read=${workspace}`,
      `--allow-write=${workspace}`,
      "--allow-run",
      `--deny-read=${join(workspace, ".env")}`,
      `--deny-write=${join(workspace, "locked")}`,
    ],
    {
      builtins: tools.value.tools.filter((name) => name !== "task"),
      outsideParent: "/var/tmp",
      files: ({ workspace, outside }) => ({
        [join(workspace, "README.md")]: "readme\n",
        [join(workspace, "src", "a.txt")]: "alpha\n",
        [join(workspace, "docs", "guide.md")]: "guide\n",
        [join(workspace, "locked", "keep.txt")]: "keep\n",
        [join(workspace, ".env")]: "SECRET=hunter2\n",
        [join(outside, "secret.txt")]: "outside secret\n",
      }),
      narrow: (grants, { workspace }) => {
        const scope = childScope(parentScope(grants), agent, scopeOptions(workspace));
        if (!scope.ok) throw new Error(JSON.stringify(scope.error));
        return { grants: scope.value.grants };
      },
    },
  );
}

const WRITER: AgentReach = {
  name: "writer",
  tools: ["read_file", "write_file", "run_command"],
  write: ["docs"],
};
const READER: AgentReach = { name: "reader", tools: ["read_file"] };

/** Whether a tool call succeeded; a tool the child was not given cannot even be called. */
async function called(s: SandboxHost, name: string, args: Record<string, unknown>) {
  try {
    return (await s.call(name, args)).success;
  } catch {
    return false;
  }
}

async function unchanged(path: string, text: string): Promise<boolean> {
  return await Deno.readTextFile(path).then((t) => t === text, () => false);
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** A loopback server that counts the requests that reach it. */
function listener(): { url: string; hits: () => number } & AsyncDisposable {
  let hits = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => {
    hits++;
    return new Response("reached");
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    hits: () => hits,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

type Attack = [string, (s: SandboxHost, net: string) => Promise<boolean>];

const run = (s: SandboxHost, command: string) =>
  s.call("run_command", { command: command.replaceAll("$OUTSIDE", s.outside) });

const WRITER_ATTACKS: Attack[] = [
  [
    "write_file a file the parent may write, outside the agent's paths",
    async (s) =>
      await called(s, "write_file", { path: "README.md", content: "x" }) ||
      !await unchanged(join(s.workspace, "README.md"), "readme\n"),
  ],
  [
    "write_file outside the workspace",
    async (s) =>
      await called(s, "write_file", { path: join(s.outside, "x"), content: "x" }) ||
      await exists(join(s.outside, "x")),
  ],
  [
    "write_file through .. out of the agent's folder",
    async (s) =>
      await called(s, "write_file", { path: "docs/../src/a.txt", content: "x" }) ||
      !await unchanged(join(s.workspace, "src", "a.txt"), "alpha\n"),
  ],
  [
    "write_file into a folder the parent's --deny-write covers",
    async (s) =>
      await called(s, "write_file", { path: "locked/keep.txt", content: "x" }) ||
      !await unchanged(join(s.workspace, "locked", "keep.txt"), "keep\n"),
  ],
  ["a command redirects into a file outside the agent's paths", async (s) => {
    await run(s, "echo x > README.md");
    return !await unchanged(join(s.workspace, "README.md"), "readme\n");
  }],
  ["a command writes outside the workspace", async (s) => {
    await run(s, "echo x > $OUTSIDE/x");
    return await exists(join(s.outside, "x"));
  }],
  ["a command writes through a link made in the agent's folder", async (s) => {
    await run(s, "ln -s ../src/a.txt docs/link; echo x > docs/link");
    return !await unchanged(join(s.workspace, "src", "a.txt"), "alpha\n");
  }],
  ["a command edits in place outside the agent's paths", async (s) => {
    await run(s, "sed -i 's/alpha/beta/' src/a.txt");
    return !await unchanged(join(s.workspace, "src", "a.txt"), "alpha\n");
  }],
  [
    "a command reads what the parent's --deny-read hides",
    async (s) => String((await run(s, "cat .env")).data).includes("hunter2"),
  ],
  [
    "read_file reads what the parent's --deny-read hides",
    async (s) => await called(s, "read_file", { path: ".env" }),
  ],
  ["a command reaches the network with curl", async (s, net) => {
    await run(s, `curl -s --max-time 2 ${net}`);
    return false; // counted by the listener
  }],
  ["a command reaches the network from a script", async (s, net) => {
    await run(s, `sh -c 'exec 3<>/dev/tcp/127.0.0.1/${new URL(net).port}' 2>/dev/null`);
    return false;
  }],
];

const READER_ATTACKS: Attack[] = [
  [
    "a reader starts a process with run_command",
    async (s) =>
      await called(s, "run_command", { command: "touch started" }) ||
      await exists(join(s.workspace, "started")),
  ],
  [
    "a reader downloads with download_url",
    async (s, net) => await called(s, "download_url", { url: net, path: "d.txt" }),
  ],
  [
    "a reader reads outside the parent's read grant",
    async (s) => await called(s, "read_file", { path: join(s.outside, "secret.txt") }),
  ],
];

Deno.test({
  name: "childScope(): 0 of 20 attacks in which a child tries to exceed its parent succeed",
  ignore: !ready,
  async fn() {
    await using net = listener();
    const succeeded: string[] = [];
    for (const [agent, attacks] of [[WRITER, WRITER_ATTACKS], [READER, READER_ATTACKS]] as const) {
      await using s = await childHost(agent);
      for (const [name, attack] of attacks) {
        if (await attack(s, net.url)) succeeded.push(name);
      }
    }
    // The scope itself: a deeper child, a widened read, an unknown tool, approvals.
    const ws = "/w";
    const grants = emptyGrants();
    grants.allow.read = [ws];
    const parent = parentScope(grants);
    const delegate = childScope(parent, { name: "d", tools: ["read_file", "task"] }, {
      ...scopeOptions(ws),
    });
    if (!delegate.ok || delegate.value.tools.includes("task")) {
      succeeded.push("a child of an agent naming task gets task beyond max_agent_depth");
    }
    if (delegate.ok && childScope(delegate.value, { name: "g" }, scopeOptions(ws)).ok) {
      succeeded.push("a grandchild starts beyond max_agent_depth");
    }
    const wide = childScope(parent, { name: "w", read: ["/"] }, scopeOptions(ws));
    if (!wide.ok || JSON.stringify(wide.value.grants.allow.read) !== '["/w"]') {
      succeeded.push("an agent's read paths widen the parent's");
    }
    const unknown = childScope(parent, { name: "u", tools: ["read_file", "Bash", "shell"] }, {
      ...scopeOptions(ws),
    });
    if (!unknown.ok || unknown.value.tools.join() !== "read_file") {
      succeeded.push("a tool name harness does not know gives the child a tool");
    }
    if (net.hits() > 0) succeeded.push(`the network was reached ${net.hits()} time(s)`);
    const yes = childScope(parent, { name: "y", autoApprove: true }, scopeOptions(ws));
    if (!yes.ok || yes.value.autoApprove) {
      succeeded.push("an agent runs without the approvals its parent needs");
    }
    assertEquals(WRITER_ATTACKS.length + READER_ATTACKS.length + 5, 20);
    assertEquals(succeeded, []);
  },
});
