// Why a confined stdio MCP server did not start, in the user's terms: the path or host its
// command sandbox refused (read from bubblewrap's and the server's own error lines, checked
// against the grants it ran with) and what to add to the entry, instead of only "Connection
// closed" and the end of its stderr.

import { dirname } from "node:path";
import type { McpStdioConfig } from "../config/mcp_config.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { commandRules, SYSTEM_READ_PATHS } from "../sandbox/commands/command_sandbox_rules.ts";
import { grantCovers } from "../sandbox/grants/permission_value.ts";

/** A host a program could not reach or resolve. */
const HOST = [
  /getaddrinfo \w+ ([\w.-]+)/,
  /request to https?:\/\/([\w.-]+)/,
  /Could not resolve host:? '?([\w.-]+)/i,
  /Failed to (?:fetch|connect to|download)[^\n]*?https?:\/\/([\w.-]+)/i,
  /(?:connect|dial tcp)[^\n]*?([\w-]+(?:\.[\w-]+)+):\d+[^\n]*(?:unreachable|refused)/i,
];
/** A write refused: a read-only mount. */
const WRITE = /EROFS|Read-only file system/;
/** Lines where a program says it could not open, find or create something. */
const REFUSED =
  /ENOENT|EACCES|EPERM|EROFS|Cannot find module|No such file|Permission denied|Read-only file system|not found/i;

/** Absolute paths quoted or standing alone on a line. */
function pathsIn(line: string): string[] {
  const quoted = [...line.matchAll(/['"`](\/[^'"`\s]+)['"`]/g)].map((m) => m[1]!);
  const bare = [...line.matchAll(/(?:^|[\s:(])(\/[^\s'"`:,)]+)/g)].map((m) => m[1]!);
  return [...new Set([...quoted, ...bare])];
}

/** What the refusal was and what the entry's `sandbox` needs for it. */
interface Refusal {
  what: string;
  fix: string;
}

function refusedPath(stderr: string, grants: Grants): Refusal | undefined {
  const rules = commandRules(grants);
  // Not /tmp: a confined command has its own empty one.
  const visible = [...SYSTEM_READ_PATHS, "/dev", "/proc", ...rules.read, ...rules.write];
  for (const line of stderr.split("\n")) {
    if (!REFUSED.test(line)) continue;
    for (const path of pathsIn(line)) {
      if (grantCovers("read", rules.hideRead, path)) {
        return {
          what: `reading "${path}" (--deny-read hides it)`,
          fix: "remove it from --deny-read",
        };
      }
      if (WRITE.test(line) && !rules.writeAll && !grantCovers("write", rules.write, path)) {
        const folder = dirname(path);
        return {
          what: `writing "${path}"`,
          fix:
            `add "${folder}" to its entry's "sandbox" "write" list (or grant --allow-write=${folder})`,
        };
      }
      if (!rules.readAll && !grantCovers("read", visible, path)) {
        const folder = dirname(path);
        return {
          what: `"${path}" (outside what it reads)`,
          fix: `add "${folder}" to its entry's "sandbox" "read" list ("write" too if it writes ` +
            `there), or grant --allow-read=${folder}`,
        };
      }
    }
  }
  return undefined;
}

function refusedHost(stderr: string, grants: Grants): Refusal | undefined {
  if (commandRules(grants).net) return undefined;
  for (const pattern of HOST) {
    const host = pattern.exec(stderr)?.[1];
    if (host !== undefined) {
      return {
        what: `the network to "${host}"`,
        fix: `add "net": ["${host}"] to its entry's "sandbox"`,
      };
    }
  }
  return undefined;
}

/**
 * The failure of a confined server in the user's terms: the path or host its sandbox refused,
 * bubblewrap's "Can't chdir" (its folder is not readable) or "execvp" (its command is missing
 * or outside what it reads); `error` as it was when the output explains nothing.
 *
 * @param error The failure as the SDK reported it, with the end of its stderr.
 * @param stderr The server's stderr (the end of it).
 * @param grants The grants its command sandbox had.
 *
 * @example
 * ```ts
 * import { confinedFailure } from "./start_failure.ts";
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
 * const line = confinedFailure("s", { command: "node" }, {
 *   error: "MCP error -32000: Connection closed",
 *   stderr: "Error: Cannot find module '/opt/srv/dist/index.js'",
 *   grants: emptyGrants(),
 * });
 * if (!line.includes('refused "/opt/srv/dist/index.js"')) throw new Error(line);
 * ```
 */
export function confinedFailure(
  name: string,
  config: McpStdioConfig,
  failure: { error: string; stderr: string; grants: Grants },
): string {
  const { error, stderr, grants } = failure;
  const folder = /Can't chdir to ([^:]+): No such file or directory/.exec(stderr + error)?.[1];
  if (folder !== undefined) {
    return `Cannot start MCP server "${name}": its folder "${folder}" is outside what its ` +
      'command sandbox reads: add it to the entry\'s "sandbox" "read" list, or grant --allow-read, ' +
      'then check with "harness mcp list"';
  }
  if (/execvp [^:]+: No such file or directory/.test(stderr + error)) {
    return `Cannot start MCP server "${name}": command "${config.command}" was not found ` +
      "inside the command sandbox: install it, give its full path, or add its folder to the " +
      'entry\'s "sandbox" "read" list, then check with "harness mcp list"';
  }
  const refusal = refusedPath(stderr, grants) ?? refusedHost(stderr, grants);
  if (refusal !== undefined) {
    return `Cannot start MCP server "${name}": its command sandbox refused ${refusal.what}: ` +
      `${refusal.fix}, then check with "harness mcp list"`;
  }
  if (/within [\d.]+ s/.test(error) && !commandRules(grants).net) {
    return `${error} (its command sandbox has no network: if it downloads at start, add ` +
      `"net": true to its entry's "sandbox")`;
  }
  return error;
}
