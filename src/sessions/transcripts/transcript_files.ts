// The files `harness sessions import` reads, in one place: a FILE or the transcripts under a
// DIR, their text, and the `.project_root` file Gemini CLI keeps beside a project's chats. Only
// this module touches the file system for the import (DESIGN.md decision 19: the gate plugs in
// here).

import { dirname, join } from "node:path";

/** Transcript files are at most this large (a longer session is read in part by no agent). */
export const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

/** How the import reaches files; tests and a gated front end give their own. */
export interface TranscriptFiles {
  /** The transcript files of a path: the file itself, or the .json and .jsonl files under it. */
  list(path: string): Promise<string[]>;
  /** A file's text. */
  read(path: string): Promise<string>;
  /** The folder Gemini CLI's `.project_root` names for a chat file, if one is near it. */
  projectRoot(file: string): Promise<string | undefined>;
}

/** The file system as the import reads it. */
export const localTranscriptFiles: TranscriptFiles = {
  async list(path) {
    const info = await Deno.stat(path);
    if (info.isFile) return [path];
    const found: string[] = [];
    await walk(path, found);
    return found.sort();
  },
  async read(path) {
    const info = await Deno.stat(path);
    if (info.size > MAX_TRANSCRIPT_BYTES) {
      throw new Error(
        `it is ${info.size} bytes, more than ${MAX_TRANSCRIPT_BYTES} a transcript has`,
      );
    }
    return await Deno.readTextFile(path);
  },
  async projectRoot(file) {
    let folder = dirname(file);
    for (let up = 0; up < 4; up++) {
      try {
        const root = (await Deno.readTextFile(join(folder, ".project_root"))).trim();
        if (root !== "") return root;
      } catch {
        // not here: one folder up
      }
      folder = dirname(folder);
    }
    return undefined;
  },
};

/** Collects .json and .jsonl files under `folder` (links are not followed). */
async function walk(folder: string, found: string[]): Promise<void> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) await walk(path, found);
    else if (entry.isFile && /\.jsonl?$/.test(entry.name)) found.push(path);
  }
}
