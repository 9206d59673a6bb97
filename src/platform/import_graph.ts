// The local files a plugin imports, found by es-module-lexer (comments and strings are not
// imports). The schema cache fingerprints them so an edited helper invalidates the cached
// schema, and project trust hashes them so a helper changed after trust is asked about again.
// They grant nothing: a plugin loads with read access to its own folder only. The lexer (an
// npm package with a wasm module) loads on first use: a start whose schemas are cached never
// lexes anything.

import { dirname, isAbsolute, relative, resolve } from "./paths.ts";
import { fileURLToPath } from "./file_urls.ts";

/** A module's local imports, or why they cannot be listed. */
export interface ImportGraph {
  /** Absolute paths of the module and the local files it imports, the module first. */
  files: string[];
  /** Files whose imports could not be lexed (their imports are missing from `files`). */
  unparsed: { path: string; reason: string }[];
  /** Local files imported that could not be read (missing now; they may appear later). */
  missing: string[];
}

/**
 * The local specifiers `source` imports: static imports and re-exports (type-only ones too),
 * and `import()` with a literal specifier. Imports inside comments and strings are not
 * imports; a computed `import()` cannot be known and is left out.
 *
 * @param source JavaScript or erasable TypeScript.
 * @returns The specifiers in source order.
 * @throws A lexer error (`SyntaxError`) when `source` cannot be lexed.
 *
 * @example
 * ```ts
 * import { importSpecifiers } from "./import_graph.ts";
 * const found = await importSpecifiers('// import "/etc/passwd"\nimport { b } from "./b.ts";');
 * if (found.join() !== "./b.ts") throw new Error(found.join());
 * ```
 */
export async function importSpecifiers(source: string): Promise<string[]> {
  const { parse } = await loadLexer();
  const [imports] = parse(source);
  const specifiers: string[] = [];
  for (const record of imports) {
    if (record.specifier === null || record.specifier === undefined) continue; // import.meta
    if ("glob" in record && record.glob) continue; // a computed import() specifier
    specifiers.push(record.specifier);
  }
  return specifiers;
}

let lexer: Promise<typeof import("es-module-lexer")> | undefined;

/** es-module-lexer, loaded and initialised once. */
function loadLexer(): Promise<typeof import("es-module-lexer")> {
  lexer ??= import("es-module-lexer").then(async (module) => {
    await module.init;
    return module;
  });
  lexer.catch(() => lexer = undefined);
  return lexer;
}

function localTarget(specifier: string, from: string): string | undefined {
  if (specifier.startsWith("file:")) return fileURLToPath(specifier);
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    return resolve(dirname(from), specifier);
  }
  return isAbsolute(specifier) ? specifier : undefined;
}

/**
 * Local files a module imports (relative, absolute or `file:` specifiers), followed
 * recursively, itself included. Bare and remote specifiers (`zod`, `npm:`, `https:`) are not
 * followed; an unreadable file is left out (the import itself reports it).
 *
 * @param path Absolute path of the module.
 * @returns The files, the module first, and the files the lexer could not read.
 *
 * @example
 * ```ts
 * import { localImports } from "./import_graph.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.ts`, 'import { b } from "./b.ts";\nimport { z } from "zod";');
 * await Deno.writeTextFile(`${dir}/b.ts`, "export const b: number = 1;");
 * const { files, unparsed } = await localImports(`${dir}/a.ts`);
 * if (files.length !== 2 || !files[1]!.endsWith("b.ts") || unparsed.length) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function localImports(path: string): Promise<ImportGraph> {
  const graph: ImportGraph = { files: [], unparsed: [], missing: [] };
  const seen = new Set<string>();
  const visit = async (file: string): Promise<void> => {
    if (seen.has(file)) return;
    seen.add(file);
    let source: string;
    try {
      source = await Deno.readTextFile(file);
    } catch {
      graph.missing.push(file); // the import itself will report the problem
      return;
    }
    graph.files.push(file);
    if (file.endsWith(".json")) return;
    let specifiers: string[];
    try {
      specifiers = await importSpecifiers(source);
    } catch (error) {
      graph.unparsed.push({ path: file, reason: String(error) });
      return;
    }
    for (const specifier of specifiers) {
      const target = localTarget(specifier, file);
      if (target) await visit(target);
    }
  };
  await visit(path);
  return graph;
}

/**
 * The files of {@linkcode localImports} as a set (kept for callers that only need the list).
 *
 * @param path Absolute path of the module.
 * @returns Absolute paths, the module first.
 *
 * @example
 * ```ts
 * import { localImportGraph } from "./import_graph.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.ts`, '/* import "/etc/passwd" *\/ export const a = 1;');
 * const files = [...await localImportGraph(`${dir}/a.ts`)];
 * if (files.length !== 1) throw new Error(files.join());
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function localImportGraph(path: string): Promise<Set<string>> {
  return new Set((await localImports(path)).files);
}

async function sha256Of(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One file of a plugin's import graph and the SHA-256 of its bytes. */
export interface FilePin {
  path: string;
  sha256: string;
}

/**
 * The module and the local files it imports that can be read here, each with the SHA-256 of
 * the bytes read (one read per file: the bytes hashed are the bytes lexed).
 *
 * @param path Absolute path of the module.
 * @returns The pins, the module first, or why the imports cannot be listed.
 *
 * @example
 * ```ts
 * import { importGraphPins } from "./import_graph.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.ts`, 'import "./b.ts";');
 * await Deno.writeTextFile(`${dir}/b.ts`, "export const b = 1;");
 * const pins = await importGraphPins(`${dir}/a.ts`);
 * if (!("pins" in pins) || pins.pins.length !== 2) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function importGraphPins(
  path: string,
): Promise<{ pins: FilePin[] } | { error: string }> {
  const pins: FilePin[] = [];
  const seen = new Set<string>();
  const visit = async (file: string): Promise<string | undefined> => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(file);
    } catch (error) {
      // The module itself must be readable; an import that is not fails when imported.
      if (file !== path) return undefined;
      return `cannot read it: ${error instanceof Error ? error.message : String(error)}`;
    }
    pins.push({ path: file, sha256: await sha256Of(bytes) });
    if (file.endsWith(".json")) return undefined;
    let specifiers: string[];
    try {
      specifiers = await importSpecifiers(new TextDecoder().decode(bytes));
    } catch (error) {
      return `cannot list the imports of "${file}": ${String(error)}`;
    }
    for (const specifier of specifiers) {
      const target = localTarget(specifier, file);
      const problem = target ? await visit(target) : undefined;
      if (problem) return problem;
    }
    return undefined;
  };
  const problem = await visit(path);
  return problem === undefined ? { pins } : { error: problem };
}

/**
 * SHA-256 of a module and every local file it imports, as project trust records it: for a
 * module that imports no local file, the hash of its bytes; otherwise the hash of one line
 * per file (its path relative to the module's folder and its own hash). A file whose imports
 * cannot be lexed cannot be hashed (its helpers would escape the hash).
 *
 * @param path Absolute path of the module.
 * @returns The hex digest and the pins it was made of, or why there is none.
 *
 * @example
 * ```ts
 * import { importGraphHash } from "./import_graph.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.ts`, 'import "./b.ts";');
 * await Deno.writeTextFile(`${dir}/b.ts`, "export const b = 1;");
 * const before = await importGraphHash(`${dir}/a.ts`);
 * await Deno.writeTextFile(`${dir}/b.ts`, "export const b = 2;");
 * const after = await importGraphHash(`${dir}/a.ts`);
 * if (!("hash" in before) || !("hash" in after) || before.hash === after.hash) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function importGraphHash(
  path: string,
): Promise<{ hash: string; pins: FilePin[] } | { error: string }> {
  const read = await importGraphPins(path);
  if ("error" in read) return read;
  const { pins } = read;
  if (pins.length === 1) return { hash: pins[0]!.sha256, pins };
  const folder = dirname(path);
  const lines = pins.map((pin) => `${relative(folder, pin.path)}\0${pin.sha256}`);
  return { hash: await sha256Of(new TextEncoder().encode(lines.join("\n"))), pins };
}

/**
 * Checks a module's import graph, as this thread can read it, against the pins taken when
 * harness listed it: a file that changed, or a local import not pinned then, is named. A
 * pinned file this thread cannot read is left out: it cannot import it either.
 *
 * @param path Absolute path of the module.
 * @param pinned The pins taken before.
 * @returns Why the module differs, or undefined when it is as pinned.
 *
 * @example
 * ```ts
 * import { changedSincePinned, importGraphPins } from "./import_graph.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.ts`, 'import "./b.ts";');
 * await Deno.writeTextFile(`${dir}/b.ts`, "export const b = 1;");
 * const pinned = await importGraphPins(`${dir}/a.ts`);
 * if (!("pins" in pinned) || await changedSincePinned(`${dir}/a.ts`, pinned.pins)) throw new Error();
 * await Deno.writeTextFile(`${dir}/b.ts`, "export const b = 2;");
 * if (!(await changedSincePinned(`${dir}/a.ts`, pinned.pins))?.includes("b.ts")) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function changedSincePinned(
  path: string,
  pinned: readonly FilePin[],
): Promise<string | undefined> {
  const now = await importGraphPins(path);
  if ("error" in now) return now.error;
  const before = new Map(pinned.map((pin) => [pin.path, pin.sha256]));
  for (const pin of now.pins) {
    const was = before.get(pin.path);
    if (was === pin.sha256) continue;
    const name = relative(dirname(path), pin.path) || pin.path;
    return was === undefined
      ? `it imports "${name}", which it did not when harness checked it`
      : `"${name}" changed after harness checked it (sha256 ${pin.sha256.slice(0, 12)}, checked ${
        was.slice(0, 12)
      })`;
  }
  return undefined;
}
