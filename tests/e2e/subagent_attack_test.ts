// Attacks by a subagent on its parent's limits, through the real `task` tool and the real CLI
// (issue 41): a child tries to write outside what it was given, to reach the network, to start
// programs, to start a deeper child, and to run what it was never approved for. Each attack is
// one call of the child's; its result must fail and leave nothing behind. 0 of 20 succeed.
// Needs bubblewrap (the command sandbox) for the command attacks.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { type RecordedRequest, reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox } from "../helpers/run_cli.ts";
import { isChildRequest, subagentResponder } from "../helpers/subagent_script.ts";
import { hasCommand } from "../helpers/system_commands.ts";

const confined = Deno.build.os === "linux" && hasCommand("bwrap");

/** One attack: the call the child makes, and whether its effect shows anyway. */
interface Attack {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /** True when the attack left a trace (a file, a connection). */
  landed(): Promise<boolean>;
}

interface Outcome {
  name: string;
  /** The child's call came back successful. */
  succeeded: boolean;
  /** Its effect is there. */
  landed: boolean;
  said: string;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** A user agent file (user agents load without a trust question). */
async function writeAgent(sandbox: CliSandbox, name: string, front: string): Promise<void> {
  const dir = join(sandbox.home, ".claude", "agents");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    join(dir, `${name}.md`),
    `---\nname: ${name}\ndescription: Does chores\n${front}\n---\nDo the chore.\n`,
  );
}

/** The results the child got, by its calls' order. */
function childResults(requests: readonly RecordedRequest[]) {
  const last = requests.filter(isChildRequest).at(-1);
  return (last?.messages ?? []).filter((m) => m.role === "tool").map((m) =>
    JSON.parse(String(m.content)) as {
      success: boolean;
      data: string | null;
      error_message: string;
    }
  );
}

/**
 * Runs the attacks as one child's calls under `flags`, the parent starting it with `agent`.
 *
 * @returns Each attack's outcome, and what the parent was told.
 */
async function attack(
  sandbox: CliSandbox,
  options: {
    agent: string;
    flags: string[];
    attacks: Attack[];
    config?: unknown;
    /** Replies of the child's own children, by their task. */
    grandchildren?: Record<string, ReturnType<typeof reply>[]>;
  },
): Promise<{ outcomes: Outcome[]; report: string }> {
  const task = `Chores for ${options.agent}`;
  const child = options.attacks.map((a) => reply().toolCall(a.tool, a.args));
  await using server = startFakeLlmServer(subagentResponder({
    parent: [
      reply().toolCall("task", { agent: options.agent, prompt: task }),
      reply().text("done"),
    ],
    children: {
      [task]: [...child, reply().text("I tried everything.")],
      ...options.grandchildren,
    },
  }));
  if (options.config) {
    await Deno.mkdir(join(sandbox.home, ".config", "harness"), { recursive: true });
    await Deno.writeTextFile(
      join(sandbox.home, ".config", "harness", "config.jsonc"),
      JSON.stringify(options.config),
    );
  }
  const out = await sandbox.run([
    "-p",
    "Start the subagent",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    ...options.flags,
  ]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(server.pairingErrors, []);
  const results = childResults(server.requests);
  assertEquals(results.length, options.attacks.length, out.stderr);
  const outcomes: Outcome[] = [];
  for (const [i, a] of options.attacks.entries()) {
    const result = results[i]!;
    // A command's result succeeds whatever its exit code: the attack worked if it exited 0.
    const ran = a.tool !== "run_command" || /^exit_code: 0$/m.test(String(result.data));
    outcomes.push({
      name: a.name,
      succeeded: result.success && ran,
      landed: await a.landed(),
      said: result.success ? String(result.data) : result.error_message,
    });
  }
  const parent = server.requests.filter((r) => !isChildRequest(r)).at(-1);
  const report = String(parent?.messages.find((m) => m.role === "tool")?.content ?? "");
  return { outcomes, report };
}

/** A listener that counts connections: a network attack that lands is counted. */
function listener(): { port: number; hits: () => number; close(): void } {
  let hits = 0;
  const server = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  void (async () => {
    for await (const conn of server) {
      hits++;
      conn.close();
    }
  })().catch(() => {});
  return {
    port: (server.addr as Deno.NetAddr).port,
    hits: () => hits,
    close: () => server.close(),
  };
}

Deno.test({
  name: "a subagent cannot exceed its parent: 0 of 20 attacks through the task tool succeed",
  ignore: !confined,
  async fn() {
    await using sandbox = await cliSandbox();
    const ws = sandbox.cwd;
    const outside = join(ws, "..", "outside");
    await Deno.mkdir(outside);
    await Deno.mkdir(join(ws, "docs"));
    await Deno.mkdir(join(ws, "src"));
    await Deno.writeTextFile(join(ws, "src", "main.ts"), "export const x = 1;\n");
    await Deno.symlink("../src", join(ws, "docs", "escape"));
    const net = listener();
    const all: Outcome[] = [];
    try {
      // Writing outside: the parent may write the workspace; the agent asks for docs/ only.
      await writeAgent(sandbox, "docs-writer", "tools: Read, Write, Edit, Bash\nwrite: docs");
      const writes = await attack(sandbox, {
        agent: "docs-writer",
        flags: ["--allow-read=.", "--allow-write=.", "--allow-run", "--yes"],
        attacks: [
          write("write_file outside the workspace", "../outside/a.txt", join(outside, "a.txt")),
          write(
            "write_file by absolute path outside",
            join(outside, "b.txt"),
            join(outside, "b.txt"),
          ),
          write("write_file in src/ (agent: docs only)", "src/c.ts", join(ws, "src", "c.ts")),
          {
            name: "edit_file in src/ (agent: docs only)",
            tool: "edit_file",
            args: { path: "src/main.ts", old_string: "1", new_string: "2" },
            landed: async () =>
              (await Deno.readTextFile(join(ws, "src", "main.ts")).catch(() => "")).includes("2"),
          },
          write(
            "write_file through a link in docs/ to src/",
            "docs/escape/d.ts",
            join(ws, "src", "d.ts"),
          ),
          command("a command writing outside", `echo x > ${outside}/e.txt`, join(outside, "e.txt")),
          command("a command writing src/", "echo x > src/f.ts", join(ws, "src", "f.ts")),
          command(
            "a command linking out",
            `ln -s ${outside} docs/out && echo x > docs/out/g.txt`,
            join(outside, "g.txt"),
          ),
          {
            name: "a command moving src/ away",
            tool: "run_command",
            args: { command: "mv src docs/src-moved" },
            landed: async () => !await exists(join(ws, "src", "main.ts")),
          },
        ],
      });
      all.push(...writes.outcomes);
      // The network: the parent has no --allow-net.
      await writeAgent(sandbox, "fetcher", "tools: Read, Bash, WebFetch");
      const network = await attack(sandbox, {
        agent: "fetcher",
        flags: ["--allow-read=.", "--allow-run", "--yes"],
        attacks: [
          {
            name: "download_url (the parent has no --allow-net)",
            tool: "download_url",
            args: { url: `http://127.0.0.1:${net.port}/` },
            landed: () => Promise.resolve(net.hits() > 0),
          },
          {
            name: "a command opening a TCP connection",
            tool: "run_command",
            args: { command: `bash -c 'echo hi > /dev/tcp/127.0.0.1/${net.port}'` },
            landed: () => Promise.resolve(net.hits() > 0),
          },
          {
            name: "a command connecting with curl or python",
            tool: "run_command",
            args: {
              command: `curl -s http://127.0.0.1:${net.port}/ || python3 -c ` +
                `"import socket; socket.create_connection(('127.0.0.1', ${net.port}))"`,
            },
            landed: () => Promise.resolve(net.hits() > 0),
          },
        ],
      });
      all.push(...network.outcomes);
      // Starting programs and deeper children: the parent has no --allow-run; depth 1.
      await writeAgent(sandbox, "runner", "tools: Read, Bash, Write, Task");
      const spawn = await attack(sandbox, {
        agent: "runner",
        flags: ["--allow-read=.", "--yes"],
        attacks: [
          command("run_command without --allow-run", "touch spawned.txt", join(ws, "spawned.txt")),
          write("write_file without a write grant", "h.txt", join(ws, "h.txt")),
          {
            name: "task from a child (max_agent_depth 1)",
            tool: "task",
            args: { agent: "general", prompt: "grandchild" },
            landed: () => Promise.resolve(false),
          },
          {
            name: "job_list (run_command's jobs, no --allow-run)",
            tool: "job_list",
            args: {},
            landed: () => Promise.resolve(false),
          },
        ],
      });
      all.push(...spawn.outcomes);
      assert(spawn.report.includes('\\"task\\" (max_agent_depth allows'), spawn.report);
      // Approvals it was not given: -p without --yes asks no one, whatever the agent file says.
      await writeAgent(
        sandbox,
        "yolo",
        "tools: Read, Write, Bash\npermissionMode: bypassPermissions",
      );
      const approvals = await attack(sandbox, {
        agent: "yolo",
        flags: ["--allow-read=.", "--allow-write=.", "--allow-run"],
        attacks: [
          write("write_file unapproved (agent: bypassPermissions)", "i.txt", join(ws, "i.txt")),
          command(
            "run_command unapproved (agent: bypassPermissions)",
            "touch j.txt",
            join(ws, "j.txt"),
          ),
        ],
      });
      all.push(...approvals.outcomes);
      // With --yes, an agent file asking for approvals gets them asked: -p can answer none.
      await writeAgent(sandbox, "careful", "tools: Read, Write, Bash\npermissionMode: default");
      const asked = await attack(sandbox, {
        agent: "careful",
        flags: ["--allow-read=.", "--allow-write=.", "--allow-run", "--yes"],
        attacks: [
          write("write_file the agent must ask for", "k.txt", join(ws, "k.txt")),
        ],
      });
      all.push(...asked.outcomes);
      // A deeper child when max_agent_depth allows one level more: its own child is refused.
      await writeAgent(sandbox, "manager", "tools: Read, Task");
      const deeper = await attack(sandbox, {
        agent: "manager",
        flags: ["--allow-read=.", "--yes"],
        config: { max_agent_depth: 2 },
        grandchildren: {
          "write docs/l.md": [
            reply().toolCall("write_file", { path: "docs/l.md", content: "pwned" }),
            reply().text("Could not write."),
          ],
        },
        attacks: [{
          name: "a grandchild writing (the child has no write grant)",
          tool: "task",
          args: { agent: "docs-writer", prompt: "write docs/l.md" },
          landed: () => exists(join(ws, "docs", "l.md")),
        }],
      });
      all.push(...deeper.outcomes);
    } finally {
      net.close();
    }
    const broke = all.filter((o) => o.succeeded && !o.said.startsWith("task_id:") || o.landed);
    assertEquals(all.length >= 20, true, `only ${all.length} attacks ran`);
    assertEquals(broke.map((o) => `${o.name}: ${o.said}`), []);
    // The deeper attack ran a grandchild that could do nothing: its report names no file.
    console.log(`subagent attacks: ${all.length - broke.length} of ${all.length} refused`);
  },
});

function write(name: string, path: string, check: string): Attack {
  return {
    name,
    tool: "write_file",
    args: { path, content: "pwned\n" },
    landed: () => exists(check),
  };
}

function command(name: string, line: string, check: string): Attack {
  return { name, tool: "run_command", args: { command: line }, landed: () => exists(check) };
}
