// `harness mcp add|list|remove|import`: manages `mcp_servers` in the user's config file
// (~/.config/harness/config.jsonc), editing it with jsonc-parser so comments and layout stay,
// and checks servers by starting them under the same grants as a run. What a file or a server
// says (names, errors, notes) is printed through the terminal sanitiser, names on one line.

import { loadSettings } from "../../config/settings.ts";
import { configDir, homeDir } from "../../config/folders.ts";
import { paths } from "../../platform/paths.ts";
import { formatAgentError } from "../../errors.ts";
import { EXIT } from "../../app/exit_codes.ts";
import type { Grants } from "../../sandbox/grants/grants.ts";
import { checkMcpServer, isStdioServer, type McpServerConfig } from "../../config/mcp_config.ts";
import { offerProfile, type ProfileQuestionIO } from "../../mcp/profile_approval.ts";
import { formatServerStates, McpServers } from "../../mcp/mcp_servers.ts";
import { probeCommandSandbox } from "../../sandbox/commands/command_sandbox_probe.ts";
import { parseFlags } from "../parse_flags.ts";
import type { CommandIO } from "../command_io.ts";
import { jsonDepth, MAX_JSON_DEPTH } from "../../platform/json_depth.ts";
import { terminalLine, terminalSafe } from "../../platform/terminal_text.ts";

export const MCP_USAGE = `Usage:
  harness mcp add NAME [--env KEY=VALUE]... -- COMMAND [ARGS...]   a stdio server
  harness mcp add NAME --url URL [--header "Name: value"]...      a Streamable HTTP server
  harness mcp list [Deno permission flags]     start each server and show its status and tools
  harness mcp remove NAME
  harness mcp import FILE                      copy the servers of another agent's file: Claude,
                                               Cursor, Gemini, VS Code, opencode, Codex, a plugin`;

/** A name from a config file or a server, quoted and on one line: its escapes show as text. */
function quoted(name: string): string {
  return `"${terminalLine(name)}"`;
}

/** Prints to stdout: what a file or a server wrote in it shows as text, never acts. */
function say(text: string): void {
  console.log(terminalSafe(text));
}

/** The user's config file, where `harness mcp` writes. */
export function userConfigFile(): string {
  return paths.join(configDir(), "config.jsonc");
}

/**
 * Runs `harness mcp ...` with the arguments after "mcp".
 *
 * @returns The exit code: 0 done, 2 usage or config error, 1 a file could not be written.
 */
export async function runMcpCommand(
  args: readonly string[],
  grants: Grants,
  io: CommandIO,
): Promise<number> {
  const [action, ...rest] = args;
  switch (action) {
    case "add":
      return await addServer(rest, io, grants);
    case "remove": {
      const [name, extra] = rest;
      if (name === undefined || extra !== undefined) {
        io.printError(`Usage: harness mcp remove NAME`);
        return EXIT.usage;
      }
      return await removeServer(name, io);
    }
    case "list":
      return await listServers(grants, io);
    case "import": {
      const [file, extra] = rest;
      if (file === undefined || extra !== undefined) {
        io.printError(
          `Usage: harness mcp import FILE, e.g. harness mcp import claude_desktop_config.json`,
        );
        return EXIT.usage;
      }
      return await importServers(file, io, grants);
    }
    default:
      io.printError(
        action === undefined
          ? `Missing mcp command: use add, list, remove or import\n${MCP_USAGE}`
          : `Unknown mcp command "${action}": use add, list, remove or import\n${MCP_USAGE}`,
      );
      return EXIT.usage;
  }
}

/** The user config's text ("{}" when it does not exist yet) and its mcp_servers. */
async function readUserConfig(
  file: string,
): Promise<{ text: string; servers: Record<string, unknown> } | { error: string }> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      return { error: `Cannot read "${file}": ${(error as Error).message}` };
    }
    text = "{}\n";
  }
  if (text.trim() === "") text = "{}\n";
  const { parseConfigText } = await import("../../config/settings.ts");
  const parsed = await parseConfigText(file, text);
  if (!parsed.ok) return { error: formatAgentError(parsed.error) };
  return { text: text.replace(/^\uFEFF/, ""), servers: parsed.value.mcpServers ?? {} };
}

/** Sets (or with undefined, removes) servers in the user config, keeping its comments. */
async function writeServers(
  file: string,
  text: string,
  changes: Record<string, McpServerConfig | undefined>,
): Promise<string | undefined> {
  const { applyEdits, modify } = await import("jsonc-parser");
  let next = text;
  const formattingOptions = { insertSpaces: true, tabSize: 2, eol: "\n" };
  for (const [name, config] of Object.entries(changes)) {
    next = applyEdits(next, modify(next, ["mcp_servers", name], config, { formattingOptions }));
  }
  try {
    await Deno.mkdir(paths.join(file, ".."), { recursive: true });
    await Deno.writeTextFile(file, next.endsWith("\n") ? next : `${next}\n`);
  } catch (error) {
    return `Cannot write "${file}": ${(error as Error).message}`;
  }
  return undefined;
}

async function addServer(
  args: readonly string[],
  io: CommandIO,
  grants: Grants,
): Promise<number> {
  const dashes = args.indexOf("--");
  const before = dashes === -1 ? args : args.slice(0, dashes);
  const command = dashes === -1 ? [] : args.slice(dashes + 1);
  const parsed = parseFlags(before, {
    url: { type: "string" },
    header: { type: "string", short: "H", multiple: true },
    env: { type: "string", short: "e", multiple: true },
    "timeout-ms": { type: "string" },
  });
  if (!parsed.ok) {
    io.printError(`${parsed.error.message.replace(/run "harness --help".*/, "")}\n${MCP_USAGE}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed.value;
  const [name, extra] = positionals;
  if (name === undefined || extra !== undefined) {
    io.printError(
      extra !== undefined
        ? `Unexpected argument "${extra}": put the server's command after "--"\n${MCP_USAGE}`
        : `Missing server name\n${MCP_USAGE}`,
    );
    return EXIT.usage;
  }
  const url = values.url as string | undefined;
  if ((url === undefined) === (command.length === 0)) {
    io.printError(
      `Give either a command after "--" or --url for server "${name}"\n${MCP_USAGE}`,
    );
    return EXIT.usage;
  }
  const pairs = (list: unknown, separator: string, flag: string) => {
    const out: Record<string, string> = {};
    for (const item of (list as string[] | undefined) ?? []) {
      const at = item.indexOf(separator);
      if (at <= 0) {
        return `Invalid ${flag} "${item}": write ${
          flag === "--env" ? "KEY=VALUE" : '"Name: value"'
        }`;
      }
      out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
    }
    return out;
  };
  const env = pairs(values.env, "=", "--env");
  const headers = pairs(values.header, ":", "--header");
  if (typeof env === "string" || typeof headers === "string") {
    io.printError(typeof env === "string" ? env : headers as string);
    return EXIT.usage;
  }
  const timeout = values["timeout-ms"] === undefined ? undefined : Number(values["timeout-ms"]);
  const config: Record<string, unknown> = url === undefined
    ? {
      command: command[0],
      ...(command.length > 1 ? { args: command.slice(1) } : {}),
      ...(Object.keys(env).length > 0 ? { env } : {}),
    }
    : { url, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  if (timeout !== undefined) config.timeout_ms = timeout;
  const problem = checkMcpServer(name, config);
  if (problem) {
    io.printError(`Cannot add MCP server: ${terminalLine(problem)}`);
    return EXIT.usage;
  }
  const checked = config as unknown as McpServerConfig;
  const file = userConfigFile();
  const current = await readUserConfig(file);
  if ("error" in current) {
    io.printError(terminalLine(current.error));
    return EXIT.usage;
  }
  if (Object.hasOwn(current.servers, name)) {
    io.printError(
      `MCP server "${name}" is already configured in "${file}": remove it first with "harness mcp remove ${name}"`,
    );
    return EXIT.usage;
  }
  await withOfferedProfile(name, checked, grants);
  const failed = await writeServers(file, current.text, { [name]: checked });
  if (failed) {
    io.printError(terminalLine(failed));
    return EXIT.runtime;
  }
  say(`Added MCP server ${quoted(name)} to ${file}`);
  say(hintFor(name, checked));
  return EXIT.ok;
}

/** Questions on stderr, answered on stdin (end of input answers no). */
function questionIO(): ProfileQuestionIO {
  return {
    readLine: async (prompt) => (await import("../read_stdin_line.ts")).readStdinLine(prompt),
    // The question shows the entry's command, arguments and paths, as the file has them.
    write: (text) => Deno.stderr.writeSync(new TextEncoder().encode(terminalSafe(text))),
  };
}

/**
 * Shows a launcher's profile (npx, uvx, bunx, docker) and asks once; an approved one goes
 * into the entry's `sandbox` (issue 45).
 */
async function withOfferedProfile(
  name: string,
  config: McpServerConfig,
  grants: Grants,
): Promise<void> {
  if (Deno.build.os === "windows" || !isStdioServer(config) || config.sandbox) return;
  const sandbox = await offerProfile(name, config, {
    grants,
    env: Deno.env.toObject(),
    cwd: Deno.cwd(),
    io: questionIO(),
  });
  if (sandbox !== undefined) config.sandbox = sandbox;
}

/** What to run next: the flag the server needs. */
function hintFor(name: string, config: McpServerConfig): string {
  if ("command" in config) {
    return `Its tools are named ${name}__TOOL; start harness with --allow-run=${config.command} ` +
      `to run it (check with "harness mcp list --allow-run=${config.command}")`;
  }
  const host = new URL(config.url).hostname;
  return `Its tools are named ${name}__TOOL; start harness with --allow-net=${host} to reach it`;
}

async function removeServer(name: string, io: CommandIO): Promise<number> {
  const file = userConfigFile();
  const current = await readUserConfig(file);
  if ("error" in current) {
    io.printError(terminalLine(current.error));
    return EXIT.usage;
  }
  if (!Object.hasOwn(current.servers, name)) {
    const known = Object.keys(current.servers).map(terminalLine);
    io.printError(
      `No MCP server ${quoted(name)} in "${file}": ${
        known.length > 0 ? `configured ones are ${known.join(", ")}` : "none is configured"
      }`,
    );
    return EXIT.usage;
  }
  const failed = await writeServers(file, current.text, { [name]: undefined });
  if (failed) {
    io.printError(terminalLine(failed));
    return EXIT.runtime;
  }
  say(`Removed MCP server ${quoted(name)} from ${file}`);
  return EXIT.ok;
}

async function listServers(grants: Grants, io: CommandIO): Promise<number> {
  const settings = await loadSettings({}, { cwd: Deno.cwd() });
  if (!settings.ok) {
    io.printError(terminalLine(formatAgentError(settings.error)));
    return EXIT.usage;
  }
  const servers = new McpServers(settings.value.mcpServers, {
    grants,
    cwd: Deno.cwd(),
    // Stdio servers start in the command sandbox, in the mode the settings choose.
    commandSandbox: probeCommandSandbox(settings.value.commandSandbox, {
      grants,
      env: Deno.env.toObject(),
      writableGit: settings.value.writableGit,
    }),
  });
  // A launcher's profile not approved yet is asked about in a terminal.
  await servers.approveProfiles(Deno.stdin.isTerminal() ? questionIO() : undefined);
  servers.start();
  await servers.settled(60_000);
  say(formatServerStates(servers.states()));
  await servers.close();
  return EXIT.ok;
}

/** The parsed value of another agent's MCP file: JSON with comments, or TOML (Codex). */
async function readForeignFile(file: string, text: string): Promise<unknown | { error: string }> {
  if (/\.toml$/i.test(file)) {
    const { parse } = await import("smol-toml");
    try {
      return parse(text.replace(/^\uFEFF/, ""));
    } catch (error) {
      return { error: `Cannot read "${file}": ${String((error as Error).message).split("\n")[0]}` };
    }
  }
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    return { error: `Cannot read "${file}": values nest more than ${MAX_JSON_DEPTH} levels deep` };
  }
  const { parse } = await import("jsonc-parser");
  return parse(text.replace(/^\uFEFF/, ""), [], { allowTrailingComma: true });
}

async function importServers(file: string, io: CommandIO, grants: Grants): Promise<number> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    io.printError(terminalLine(`Cannot read "${file}": ${(error as Error).message}`));
    return EXIT.usage;
  }
  const value = await readForeignFile(file, text);
  if (value !== null && typeof value === "object" && "error" in value) {
    io.printError(terminalLine(String((value as { error: string }).error)));
    return EXIT.usage;
  }
  const { foreignMcpServers, neededVariables } = await import(
    "../../config/foreign_mcp_servers.ts"
  );
  const found = foreignMcpServers(value, { file: paths.resolve(file), home: homeDir() });
  if (!found) {
    io.printError(
      `No MCP servers in "${file}": expected "mcpServers" (Claude, Cursor, Gemini), "servers" ` +
        '(VS Code), "mcp" (opencode), [mcp_servers] (Codex) or a map of servers (a plugin\'s .mcp.json)',
    );
    return EXIT.usage;
  }
  const target = userConfigFile();
  const current = await readUserConfig(target);
  if ("error" in current) {
    io.printError(terminalLine(current.error));
    return EXIT.usage;
  }
  const added: Record<string, McpServerConfig> = {};
  for (const [name, entry] of Object.entries(found.servers)) {
    if (Object.hasOwn(current.servers, name)) {
      say(`Skipped ${quoted(name)}: already configured (harness mcp remove ${quoted(name)} first)`);
      continue;
    }
    const problem = checkMcpServer(name, entry);
    if (problem) {
      say(`Skipped ${quoted(name)}: ${terminalLine(problem)}`);
      continue;
    }
    added[name] = entry as unknown as McpServerConfig;
    for (const note of found.notes[name] ?? []) say(`${quoted(name)}: ${terminalLine(note)}`);
    const needed = neededVariables(entry);
    if (needed.length > 0) {
      const state = needed.map((v) => `$${v}${Deno.env.get(v) ? "" : " (not set now)"}`);
      say(
        `${quoted(name)} reads ${state.join(", ")} when it starts; it does not start without them`,
      );
    }
    await withOfferedProfile(name, added[name], grants);
  }
  const names = Object.keys(added);
  if (names.length === 0) {
    say("Nothing imported");
    return EXIT.ok;
  }
  const failed = await writeServers(target, current.text, added);
  if (failed) {
    io.printError(terminalLine(failed));
    return EXIT.runtime;
  }
  say(
    `Imported ${names.length} MCP server${names.length === 1 ? "" : "s"} into ${target}: ${
      names.map(terminalLine).join(", ")
    }`,
  );
  const commands = [
    ...new Set(Object.values(added).flatMap((c) => "command" in c ? [c.command] : [])),
  ];
  if (commands.length > 0) {
    say(`Stdio servers run only with --allow-run=${commands.map(terminalLine).join(",")}`);
  }
  return EXIT.ok;
}
