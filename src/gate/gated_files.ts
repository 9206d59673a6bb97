// File I/O through the gate, for host code that reads or writes on someone's behalf (the
// editor's files under ACP, mentions, pasted images, instruction files, custom commands,
// session exports): each function asks the gate first, opens the real path it returned, and
// checks that the file it opened is the one it checked (a link swapped in between is refused).

import { paths } from "../platform/paths.ts";
import type { FileGate } from "./file_gate.ts";
import type { CheckOptions, FileAccess, GateRefusal } from "./gate_types.ts";
import { concatBytes } from "../platform/concat_bytes.ts";

/** The gate refused: `refusal` says why; the message is its sentence. */
export class GateRefused extends Deno.errors.NotCapable {
  readonly refusal: GateRefusal;
  constructor(refusal: GateRefusal) {
    super(refusal.message);
    this.name = "GateRefused";
    this.refusal = refusal;
  }
}

/**
 * The real path to use for `access`, or throws {@link GateRefused}.
 *
 * @example
 * ```ts
 * import { FileGate } from "./file_gate.ts";
 * import { gatedPath, GateRefused } from "./gated_files.ts";
 * const gate = FileGate.open({
 *   read: ["/w"], write: [], denyRead: [], denyWrite: [],
 *   protected: [], protectedNames: [], hidden: [],
 * });
 * try {
 *   gatedPath(gate, "read", "/etc/passwd");
 *   throw new Error("not refused");
 * } catch (error) {
 *   if (!(error instanceof GateRefused) || error.refusal.reason !== "not_granted") throw error;
 * }
 * ```
 */
export function gatedPath(
  gate: FileGate,
  access: FileAccess,
  path: string,
  options: CheckOptions = {},
): string {
  const verdict = gate.check(access, path, options);
  if (!verdict.ok) throw new GateRefused(verdict.refusal);
  return verdict.real;
}

/** Reads an opened file whole, or its first `maxBytes + 1` bytes. */
async function readOpened(file: Deno.FsFile, maxBytes: number | undefined): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const limit = maxBytes === undefined ? Infinity : maxBytes + 1;
  while (total < limit) {
    const buffer = new Uint8Array(Math.min(64 * 1024, limit - total));
    const n = await file.read(buffer);
    if (n === null) break;
    chunks.push(buffer.subarray(0, n));
    total += n;
  }
  return concatBytes(chunks, total);
}

/**
 * Reads a file the gate lets `path` read: the bytes (at most `maxBytes + 1` when given, so a
 * caller can tell a file was longer) and the real path read.
 *
 * @param gate The run's gate.
 * @param path The path as given.
 * @param options `maxBytes`: stop after this many bytes and one more; `ungranted`: a folder
 *   whose files need no grant (CheckOptions).
 * @returns The bytes and where they came from.
 * @throws {GateRefused} when the gate refuses, or a file opened is not the one checked.
 */
export async function readGatedFile(
  gate: FileGate,
  path: string,
  options: { maxBytes?: number } & CheckOptions = {},
): Promise<{ bytes: Uint8Array; real: string }> {
  const check = options.ungranted === undefined ? {} : { ungranted: options.ungranted };
  const real = gatedPath(gate, "read", path, check);
  const file = await Deno.open(real, { read: true });
  try {
    // The file opened must be the one the gate judged: a link swapped in meanwhile could lead
    // to a denied file, which the gate refuses by its identity.
    const info = await file.stat();
    if (!info.isFile) {
      throw new Deno.errors.InvalidData(`"${path}" is not a regular file`);
    }
    gatedPath(gate, "read", real, check);
    return { bytes: await readOpened(file, options.maxBytes), real };
  } finally {
    file.close();
  }
}

/**
 * Reads a text file through the gate (UTF-8).
 *
 * @example
 * ```ts
 * import { FileGate } from "./file_gate.ts";
 * import { readGatedTextFile } from "./gated_files.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.md`, "hi");
 * const gate = FileGate.open({
 *   read: [dir], write: [], denyRead: [], denyWrite: [],
 *   protected: [], protectedNames: [], hidden: [],
 * });
 * if ((await readGatedTextFile(gate, `${dir}/a.md`)) !== "hi") throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readGatedTextFile(gate: FileGate, path: string): Promise<string> {
  return new TextDecoder().decode((await readGatedFile(gate, path)).bytes);
}

/**
 * Writes a text file through the gate (the real path it names; missing folders are not made).
 *
 * @param options `mode`: the file's mode when it is created (0o600 for owner-only).
 * @throws {GateRefused} when the gate refuses.
 */
export async function writeGatedTextFile(
  gate: FileGate,
  path: string,
  text: string,
  options: { mode?: number } = {},
): Promise<string> {
  const real = gatedPath(gate, "write", path);
  await Deno.writeTextFile(real, text, options.mode === undefined ? {} : { mode: options.mode });
  return real;
}

/**
 * Makes a folder the gate lets `path` write (and the missing folders above it that are
 * inside the same grant); nothing when it exists.
 *
 * @throws {GateRefused} when the gate refuses.
 */
export async function makeGatedDir(gate: FileGate, path: string): Promise<string> {
  const real = gatedPath(gate, "write", path);
  await Deno.mkdir(real, { recursive: true });
  return real;
}

/**
 * Stats a path through the gate (links followed).
 *
 * @throws {GateRefused} when the gate refuses.
 */
export async function statGated(gate: FileGate, path: string): Promise<Deno.FileInfo> {
  return await Deno.stat(gatedPath(gate, "stat", path));
}

/**
 * Lists a folder through the gate: entries the gate would refuse to read are left out.
 *
 * @throws {GateRefused} when the gate refuses the folder.
 */
export async function readGatedDir(gate: FileGate, path: string): Promise<Deno.DirEntry[]> {
  const real = gatedPath(gate, "list", path);
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(real)) {
    if (gate.check("stat", paths.join(real, entry.name)).ok) entries.push(entry);
  }
  return entries;
}

/**
 * Lists a folder through the gate, synchronously (Tab completion answers while a key is
 * pressed): entries the gate would refuse to inspect are left out. Undefined when the gate
 * refuses the folder or it cannot be listed.
 *
 * @example
 * ```ts
 * import { FileGate } from "./file_gate.ts";
 * import { readGatedDirSync } from "./gated_files.ts";
 * const dir = Deno.realPathSync(Deno.makeTempDirSync());
 * Deno.writeTextFileSync(`${dir}/a.txt`, "");
 * Deno.writeTextFileSync(`${dir}/.env`, "");
 * const gate = FileGate.open({
 *   read: [dir], write: [], denyRead: [`${dir}/.env`], denyWrite: [],
 *   protected: [], protectedNames: [], hidden: [],
 * });
 * if (readGatedDirSync(gate, dir)?.map((e) => e.name).join() !== "a.txt") throw new Error();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function readGatedDirSync(gate: FileGate, path: string): Deno.DirEntry[] | undefined {
  const verdict = gate.check("list", path);
  if (!verdict.ok) return undefined;
  try {
    return [...Deno.readDirSync(verdict.real)].filter((entry) =>
      gate.check("stat", paths.join(verdict.real, entry.name)).ok
    );
  } catch {
    return undefined;
  }
}

/**
 * Reads a small text file through the gate, synchronously; undefined when the gate refuses it
 * or it cannot be read.
 */
export function readGatedTextFileSync(gate: FileGate, path: string): string | undefined {
  const verdict = gate.check("read", path);
  if (!verdict.ok) return undefined;
  try {
    return Deno.readTextFileSync(verdict.real);
  } catch {
    return undefined;
  }
}
