// Images the user's message names: `@pic.png` (read through the sandbox's read_file, as any
// @ mention, so the grants and deny rules apply) and a pasted path to an image (what a
// terminal pastes when a file is dropped on it: an absolute or ~/ path, maybe quoted or with
// escaped spaces), which the user chose, read by harness through the gate, but only from a
// real paste event. Each is checked by its first bytes.

import { homeDir } from "../config/folders.ts";
import type { ImagePart } from "../messages.ts";
import { hasImageExtension, readImageFile } from "../platform/image_file.ts";
import type { ToolSource } from "../tools/tool_entry.ts";
import { builtinOf, READ_FILE } from "../tools/builtin_tools.ts";
import type { FileGate } from "../gate/file_gate.ts";

/** A pasted image path in a message. */
export interface PastedPath {
  start: number;
  end: number;
  /** The path, quotes and escapes removed, `~` expanded. */
  path: string;
}

/**
 * Finds pasted image paths: a word that is an absolute path (or starts with `~/` or
 * `file://`) ending in .png, .jpg, .jpeg, .gif or .webp, bare with `\ ` for spaces or in
 * single or double quotes. An `@` mention is not one (mentions are read by read_file).
 *
 * @param text The message.
 * @param home The home folder for `~`.
 * @returns The paths in order.
 *
 * @example
 * ```ts
 * import { pastedImagePaths } from "./prompt_images.ts";
 * const found = pastedImagePaths("what is this '/tmp/My Shot.png' and /a/b\\ c.jpg? @x.png", "/h");
 * const paths = found.map((p) => p.path).join("|");
 * if (paths !== "/tmp/My Shot.png|/a/b c.jpg") throw new Error(paths);
 * ```
 */
export function pastedImagePaths(text: string, home: string): PastedPath[] {
  const found: PastedPath[] = [];
  const word = /(['"])((?:~\/|\/|file:\/\/)[^'"]+?)\1|((?:~\/|\/|file:\/\/)(?:\\ |[^\s])+)/g;
  for (const match of text.matchAll(word)) {
    const start = match.index ?? 0;
    if (start > 0 && !/[\s(]/.test(text[start - 1]!)) continue;
    const raw = match[2] ?? (match[3] ?? "").replaceAll("\\ ", " ").replace(/[.,;:!?)]+$/, "");
    let path = raw.startsWith("file://") ? decodeURIComponent(raw.slice(7)) : raw;
    if (path.startsWith("~/")) path = `${home}${path.slice(1)}`;
    if (!hasImageExtension(path)) continue;
    found.push({ start, end: start + match[0].length, path });
  }
  return found;
}

/**
 * The `@` mentions of images in a message: `@` at the start or after white space or `(`, then
 * a path ending in an image extension (`@"a b.png"` for spaces); punctuation that ends the
 * sentence is not part of it. Other mentions are left to the mention reader.
 *
 * @param text The message.
 * @returns The paths, each once.
 *
 * @example
 * ```ts
 * import { imageMentions } from "./prompt_images.ts";
 * const found = imageMentions('see @ui/shot.png, @"my pic.jpg" and @notes.md; mail a@b.png');
 * if (found.join("|") !== "ui/shot.png|my pic.jpg") throw new Error(found.join("|"));
 * ```
 */
export function imageMentions(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|[\s(])@(?:"([^"]+)"|(\S+))/g)) {
    const path = match[1] ?? (match[2] ?? "").replace(/[.,;:!?)\]}'"`]+$/, "");
    if (hasImageExtension(path) && !found.includes(path)) found.push(path);
  }
  return found;
}

/**
 * Reads the images a message names by a path the terminal pasted: only a path that came in a
 * real paste or drop event (the REPL's bracketed paste) counts, never one typed or written in
 * `-p` or an editor's prompt text, which stays text. Each is read through the workspace's
 * gate: a pasted file needs no read grant (the user chose it), but `--deny-read`, harness's
 * data folder and entries known by identity refuse it, and the message is not sent.
 *
 * @param text The message.
 * @param options `pasted`: the texts the terminal pasted; `gate`: the workspace's file gate;
 *   `maxBytes`: image_max_size.
 * @returns The images, or why the message is not sent.
 */
export async function pastedImages(
  text: string,
  options: { pasted: readonly string[]; gate: FileGate; maxBytes: number },
): Promise<{ images: ImagePart[] } | { refused: string }> {
  const home = homeDir();
  const pastedPaths = new Set(
    options.pasted.flatMap((p) => pastedImagePaths(p, home)).map((p) => p.path),
  );
  const images: ImagePart[] = [];
  for (const { path } of pastedImagePaths(text, home)) {
    if (!pastedPaths.has(path)) continue; // typed, not pasted: text
    const verdict = options.gate.check("read", path);
    if (!verdict.ok && verdict.refusal.reason !== "not_granted") {
      return {
        refused: `Cannot attach "${path}": ${verdict.refusal.message}. The message was not sent`,
      };
    }
    try {
      if (!Deno.statSync(path).isFile) continue;
    } catch {
      continue; // a path in prose, not a file: it stays text
    }
    const part = await readImageFile(path, { maxBytes: options.maxBytes });
    if ("error" in part) return { refused: `${part.error}. The message was not sent` };
    // The file read must be the one the gate judged (a link swapped in meanwhile).
    const again = options.gate.check("read", path);
    if (!again.ok && again.refusal.reason !== "not_granted") {
      return {
        refused: `Cannot attach "${path}": ${again.refusal.message}. The message was not sent`,
      };
    }
    if (!images.some((image) => image.sha256 === part.sha256)) images.push(part);
  }
  return { images };
}

/**
 * The image hook of @ mentions: `@pic.png` is read by the sandbox's read_file (the grants, the
 * deny rules and the workspace check apply as for the model's call), which returns a picture
 * as an image.
 *
 * @param source The sandboxed plugins (their entries run as they are: no stage gates them).
 * @returns For a path: the image, or why it cannot be attached.
 */
export function mentionedImage(
  source: ToolSource,
): (path: string) => Promise<{ ok: true; part: ImagePart } | { ok: false; message: string }> {
  return async (path) => {
    // The REPL takes messages before the plugins are listed.
    const readFile = await builtinOf(source, READ_FILE);
    if (!readFile) return { ok: false, message: "the read_file tool is not loaded" };
    const run = await readFile.run({ path, offset: 1, limit: 1 }, { state: {} });
    if (!run.result.success) {
      return { ok: false, message: run.result.error_message ?? "unreadable" };
    }
    const part = run.images?.[0];
    if (!part) return { ok: false, message: "it is not a PNG, JPEG, GIF or WebP image" };
    return { ok: true, part };
  };
}
