// Runs a parsed command: the REPL or a -p run, `harness tool`, `harness sessions`,
// `harness policy explain` and `harness plugin new`. Builds the parts each needs from the
// settings and hands them to the REPL or the printer.

import { join } from "node:path";
import type { Command, RunFlags } from "./args.ts";
import { loadSettings, type Settings } from "../config.ts";
import { formatAgentError } from "../errors.ts";
import type { Grants } from "../sandbox/grants.ts";
import { EXIT } from "../run_print.ts";
import { createNullSessionStore, openSessionStore, type SessionStore } from "../session_store.ts";
import { writePluginSkeleton } from "../plugins/plugin_skeleton.ts";
import { loadPolicyFiles, policyFileRefs } from "../permissions/policy_file.ts";
import { explainDecision } from "../permissions/explain.ts";
import { openTools } from "./open_tools.ts";
import { dataDir } from "../config.ts";

export interface CommandIO {
  printError(message: string): void;
}

/**
 * Runs one command; returns the process exit code.
 *
 * @param command The parsed command (not help/version).
 * @param grants The Deno permission grants from the command line.
 * @param io Error printing.
 */
export async function runCommand(command: Command, grants: Grants, io: CommandIO): Promise<number> {
  const cwd = Deno.cwd();
  switch (command.kind) {
    case "help":
    case "version":
      return EXIT.ok;
    case "plugin_new": {
      const written = await writePluginSkeleton({ dir: join(cwd, "plugins"), name: command.name });
      if (!written.ok) {
        io.printError(formatAgentError(written.error));
        return EXIT.usage;
      }
      console.log(`Wrote ${written.value.pluginPath}\nWrote ${written.value.typesPath}`);
      console.log(`Try it: harness tool ${command.name} '{"who": "Ada"}'`);
      return EXIT.ok;
    }
    case "sessions":
      return await runSessionsCommand(command, io);
    case "policy_explain":
      return await runPolicyExplain(command, grants, cwd, io);
    case "tool":
      return await runToolCommand(command, grants, cwd, io);
    case "run": {
      const { runConversation } = await import("./run_conversation.ts");
      return await runConversation(command.flags, grants, io);
    }
    default: {
      const never: never = command;
      throw new Error(`unhandled command ${JSON.stringify(never)}`);
    }
  }
}

/** Loads settings or prints the config error. */
export async function settingsOrExit(flags: RunFlags, io: CommandIO): Promise<Settings | number> {
  const settings = await loadSettings(flags, { cwd: Deno.cwd() });
  if (!settings.ok) {
    io.printError(formatAgentError(settings.error));
    return EXIT.usage;
  }
  return settings.value;
}

/** Opens the session store, or the null store with --no-session. */
export function openStoreOrExit(flags: RunFlags, io: CommandIO): SessionStore | number {
  if (flags.noSession) return createNullSessionStore();
  const store = openSessionStore({});
  if (!store.ok) {
    io.printError(`${formatAgentError(store.error)}`);
    return EXIT.runtime;
  }
  return store.value;
}

function parseJsonArgument(json: string, io: CommandIO): unknown | undefined {
  try {
    return JSON.parse(json);
  } catch (error) {
    io.printError(
      `Invalid JSON arguments '${json}': ${
        (error as Error).message
      }: pass one JSON object, e.g. '{"path": "."}'`,
    );
    return undefined;
  }
}

async function runToolCommand(
  command: Extract<Command, { kind: "tool" }>,
  grants: Grants,
  cwd: string,
  io: CommandIO,
): Promise<number> {
  const settings = await settingsOrExit(command.flags, io);
  if (typeof settings === "number") return settings;
  const args = parseJsonArgument(command.json, io);
  if (args === undefined) return EXIT.usage;
  const tools = await openTools({
    settings,
    grants,
    cwd,
    dataDir: join(dataDir(), "outputs", "direct"),
    interactive: false,
    io: {
      write: (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
      readLine: () => Promise.resolve(null),
    },
  });
  try {
    const info = tools.host.list().find((tool) => tool.name === command.name);
    if (!info) {
      io.printError(
        `Unknown tool "${command.name}": available tools are ${
          tools.host.list().map((t) => t.name).join(", ")
        }`,
      );
      return EXIT.usage;
    }
    const validated = await tools.host.validate(command.name, args);
    if (!validated.ok) {
      io.printError(`Invalid arguments for "${command.name}": ${validated.error.join("; ")}`);
      return EXIT.usage;
    }
    const run = await tools.host.run(command.name, validated.value, { state: {} });
    console.log(JSON.stringify(run.result, null, 2));
    return run.result.success ? EXIT.ok : EXIT.runtime;
  } finally {
    await tools.host.close();
  }
}

async function runPolicyExplain(
  command: Extract<Command, { kind: "policy_explain" }>,
  grants: Grants,
  cwd: string,
  io: CommandIO,
): Promise<number> {
  const settings = await settingsOrExit(command.flags, io);
  if (typeof settings === "number") return settings;
  const args = parseJsonArgument(command.json, io);
  if (args === undefined) return EXIT.usage;
  const rules = await loadPolicyFiles(
    policyFileRefs({ cwd, ...(command.flags.policies ? { extra: command.flags.policies } : {}) }),
  );
  if (!rules.ok) {
    io.printError(formatAgentError(rules.error));
    return EXIT.usage;
  }
  const tools = await openTools({
    settings,
    grants,
    cwd,
    dataDir: join(dataDir(), "outputs", "direct"),
    interactive: false,
    io: { write: () => {}, readLine: () => Promise.resolve(null) },
  });
  const info = tools.host.list().find((tool) => tool.name === command.tool);
  await tools.host.close();
  if (!info) {
    io.printError(`Unknown tool "${command.tool}": run "harness tool" names from /tools`);
    return EXIT.usage;
  }
  const mode = command.flags.yes ? "yes" : "interactive";
  const explained = explainDecision({ tool: command.tool, args, risk: info.risk }, rules.value, {
    mode,
    workspace: cwd,
  });
  console.log(explained.text);
  return EXIT.ok;
}

async function runSessionsCommand(
  command: Extract<Command, { kind: "sessions" }>,
  io: CommandIO,
): Promise<number> {
  const store = openStoreOrExit({ ...command.flags, noSession: false }, io);
  if (typeof store === "number") return store;
  try {
    switch (command.action) {
      case "list": {
        const listed = store.listSessions({ limit: 50 });
        if (!listed.ok) {
          io.printError(formatAgentError(listed.error));
          return EXIT.runtime;
        }
        const sessions = listed.value;
        if (sessions.length === 0) console.log("No sessions yet");
        for (const s of sessions) {
          const first = (s.firstUserMessage ?? "").replace(/\s+/g, " ").slice(0, 60);
          console.log(
            `${s.id}  ${
              s.startedAt.slice(0, 16).replace("T", " ")
            }  ${s.userTurns} turns  ${s.model}  ${s.cwd}  ${first}`,
          );
        }
        return EXIT.ok;
      }
      case "export": {
        const exported = store.exportSession(command.arg!, (line) => console.log(line));
        if (!exported.ok) {
          io.printError(formatAgentError(exported.error));
          return EXIT.usage;
        }
        return EXIT.ok;
      }
      case "search": {
        const searched = store.searchSessions(command.arg!);
        if (!searched.ok) {
          io.printError(formatAgentError(searched.error));
          return EXIT.runtime;
        }
        const found = searched.value;
        if (found.hits.length === 0) console.log(`No messages match "${command.arg}"`);
        for (const hit of found.hits) {
          console.log(
            `${hit.sessionId}  ${hit.at.slice(0, 16).replace("T", " ")}  ${
              hit.type.replace("_message", "")
            }  ${hit.snippet}`,
          );
        }
        return EXIT.ok;
      }
      case "delete": {
        if (!Deno.stdin.isTerminal()) {
          io.printError(
            `Refusing to delete session "${command.arg}" without confirmation: run "harness sessions delete ${command.arg}" in a terminal`,
          );
          return EXIT.usage;
        }
        const deleted = await store.deleteSession(command.arg!, {
          confirm: (s) => {
            const answer = prompt(
              `Delete session ${s.id} (${s.userTurns} turns, ${s.cwd}, "${
                (s.firstUserMessage ?? "").slice(0, 40)
              }")? [y/N]`,
            );
            return answer?.trim().toLowerCase() === "y";
          },
        });
        if (!deleted.ok) {
          io.printError(formatAgentError(deleted.error));
          return EXIT.usage;
        }
        console.log(deleted.value ? `Deleted session ${command.arg}` : "Nothing deleted");
        return EXIT.ok;
      }
      default: {
        const never: never = command.action;
        throw new Error(`unhandled sessions action ${String(never)}`);
      }
    }
  } finally {
    store.close();
  }
}
