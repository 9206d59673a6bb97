// Folders a session may read besides the grants: a loaded skill's folder (issue 42). The one
// gate decides, here, whether a folder may become readable, and keeps the list; the tool
// workers and the command sandbox take the same list from it (`FileGate.sessionReads`), so the
// three agree. A folder is refused when the gate refuses to read it, when it holds a denied,
// protected or hidden entry (a grant of the folder would reach it), or when a link in it leads
// out of it (a hostile skill's `keys -> ~/.ssh`): Deno checks a worker's reads by the path as
// written, so such a link would carry the grant elsewhere. Read-only: never a write grant.

import { paths } from "../platform/paths.ts";
import type { FileAccess, GateRules, GateVerdict } from "./gate_types.ts";

const { join, relative, isAbsolute, sep } = paths;

/** Entries of a folder looked at before it is refused as too large to check. */
export const MAX_GRANTED_ENTRIES = 5_000;

/** What the check needs of the gate. */
export interface ReadGrantGate {
  readonly rules: Readonly<GateRules>;
  check(access: FileAccess, path: string): GateVerdict;
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

function realPathOf(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/** The gate's refusal of `access` to `path`, but a missing grant (what the grant adds). */
function refusal(gate: ReadGrantGate, access: FileAccess, path: string): string | undefined {
  const verdict = gate.check(access, path);
  if (verdict.ok || verdict.refusal.reason === "not_granted") return undefined;
  return verdict.refusal.message;
}

/** A denied, protected or hidden path of the rules inside `real` (it may not exist yet). */
function heldByRules(rules: Readonly<GateRules>, real: string): string | undefined {
  const listed = [
    ...(rules.denyRead === true ? [] : rules.denyRead),
    ...rules.protected.map((entry) => entry.path),
    ...rules.hidden.map((entry) => entry.path),
  ];
  return listed.find((entry) => entry !== real && inside(real, entry));
}

/**
 * Why the folder whose real path is `real` may not become readable for the session, or
 * undefined when it may. Every entry is asked of the gate (denied, hidden, protected, or a
 * recorded entry under another name); a link must lead inside the folder.
 *
 * @param gate The gate.
 * @param real The folder's real path.
 * @returns A sentence naming the entry and why, for the model and the user.
 */
export function readGrantRefusal(gate: ReadGrantGate, real: string): string | undefined {
  const why = refusal(gate, "read", real);
  if (why !== undefined) return why;
  const held = heldByRules(gate.rules, real);
  if (held !== undefined) return `it holds "${held}", which harness denies, hides or protects`;
  let seen = 0;
  const visit = (dir: string): string | undefined => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch (error) {
      return `"${dir}" cannot be listed (${(error as Error).message})`;
    }
    for (const entry of entries) {
      if (++seen > MAX_GRANTED_ENTRIES) {
        return `it holds more than ${MAX_GRANTED_ENTRIES} entries, too many to check`;
      }
      const path = join(dir, entry.name);
      const problem = entryRefusal(gate, real, path, entry);
      if (problem !== undefined) return problem;
      if (entry.isDirectory) {
        const deeper = visit(path);
        if (deeper !== undefined) return deeper;
      }
    }
    return undefined;
  };
  return visit(real);
}

/** Why one entry of the folder keeps the folder from being granted. */
function entryRefusal(
  gate: ReadGrantGate,
  root: string,
  path: string,
  entry: Deno.DirEntry,
): string | undefined {
  if (entry.isSymlink) {
    const target = realPathOf(path);
    if (target === undefined || !inside(root, target)) {
      return `"${path}" links out of the folder${target ? ` (to "${target}")` : ""}`;
    }
  }
  const read = refusal(gate, "read", path);
  if (read !== undefined) return read;
  // The protected set (`.git`, `.harness`, plugin folders) is never handed out, even to read.
  const verdict = gate.check("write", path);
  if (!verdict.ok && verdict.refusal.reason === "protected") {
    return `it holds "${path}", which harness protects`;
  }
  return undefined;
}

/**
 * `grants` with the session's folders added to its read list (a command's sandbox, a read
 * tool's worker); everything readable stays so. Writes are never added.
 *
 * @param grants The grants.
 * @param reads The folders (`FileGate.sessionReads()`).
 * @returns The grants to use now.
 *
 * @example
 * ```ts
 * import { withSessionReads } from "./session_reads.ts";
 * const grants = { allow: { read: ["/w"], write: ["/w"] } };
 * const out = withSessionReads(grants, ["/skills/pdf"]);
 * if (JSON.stringify(out.allow) !== '{"read":["/w","/skills/pdf"],"write":["/w"]}') throw new Error();
 * ```
 */
export function withSessionReads<T extends { allow: { read: true | readonly string[] } }>(
  grants: T,
  reads: readonly string[],
): T {
  const read = grants.allow.read;
  if (reads.length === 0 || read === true) return grants;
  return { ...grants, allow: { ...grants.allow, read: [...new Set([...read, ...reads])] } };
}
