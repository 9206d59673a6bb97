// @ mentions in a user's message, for every front end: `@path` attaches the file as read_file
// returns it, `@folder/` the folder's listing as ls gives it, both run in the sandbox with
// the model's grants and deny rules, so a mention can show the model nothing a tool call
// could not. A mention that cannot be read refuses the whole message before it is sent.

import { LS, READ_FILE } from "../tools/builtin_tools.ts";

/** One `@` mention in a message. */
export interface Mention {
  /** Index of the `@` and the end of the mention in the message. */
  start: number;
  end: number;
  /** The path as typed, quotes and escapes removed. */
  path: string;
  /** `@folder/`: the listing is attached. */
  folder: boolean;
}

/** What a sandboxed tool gave for a mention. */
export type MentionToolResult =
  | { ok: true; output: string }
  | { ok: false; errorType: string; message: string };

/** How mentions are read: the sandboxed tools, and an optional hook for images. */
export interface MentionSource<I = never> {
  /** Runs read_file or ls with these arguments, as the model's call would run. */
  run(tool: typeof READ_FILE | typeof LS, args: { path: string }): Promise<MentionToolResult>;
  /**
   * Attaches an image (`@pic.png`): the part to send, or why not. Without it an image path is
   * left alone here (the run's image handling, turn_input/prompt_images.ts, reads it).
   */
  image?(path: string): Promise<{ ok: true; part: I } | { ok: false; message: string }>;
}

/** A message with its mentions attached. */
export interface ExpandedMessage<I = never> {
  /** The text to send: what the user typed, then each attached file or listing. */
  text: string;
  /** The paths attached, in order. */
  attached: string[];
  /** Image parts the hook returned. */
  images: I[];
  /** Lines for the user: mentions left as text (no such file). */
  notes: string[];
}

/** Extensions an image hook is asked about. */
const IMAGE_EXTENSIONS = /\.(png|jpe?g|gif|webp)$/i;
/** Punctuation that ends a sentence after a mention rather than being part of the path. */
const TRAILING = /[.,;:!?)\]}'"`]+$/;

/**
 * Finds the `@` mentions in a message: `@` at the start, after white space or `(`, then a path
 * (`@"a b.txt"` or `@a\ b.txt` for spaces); punctuation that ends the sentence is not part of
 * it, and `a@b.com` is no mention.
 *
 * @param text The message.
 * @returns The mentions in order.
 *
 * @example
 * ```ts
 * import { parseMentions } from "./mentions.ts";
 * const found = parseMentions('Compare @src/a.ts and @"my notes.md", see @docs/. Mail a@b.c');
 * const paths = found.map((m) => `${m.path}${m.folder ? " (folder)" : ""}`);
 * if (paths.join("|") !== "src/a.ts|my notes.md|docs/ (folder)") throw new Error(paths.join("|"));
 * ```
 */
export function parseMentions(text: string): Mention[] {
  const found: Mention[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "@" || (i > 0 && !/[\s(]/.test(text[i - 1]!))) continue;
    const parsed = text[i + 1] === '"' ? quoted(text, i + 2) : bare(text, i + 1);
    if (parsed === undefined || parsed.path === "" || parsed.path === "/") continue;
    found.push({
      start: i,
      end: parsed.end,
      path: parsed.path,
      folder: parsed.path.endsWith("/"),
    });
    i = parsed.end - 1;
  }
  return found;
}

function quoted(text: string, from: number): { path: string; end: number } | undefined {
  const close = text.indexOf('"', from);
  if (close === -1) return undefined;
  return { path: text.slice(from, close), end: close + 1 };
}

function bare(text: string, from: number): { path: string; end: number } {
  let path = "";
  let end = from;
  while (end < text.length && !/\s/.test(text[end]!)) {
    if (text[end] === "\\" && end + 1 < text.length && /\s/.test(text[end + 1]!)) {
      path += text[end + 1];
      end += 2;
      continue;
    }
    path += text[end];
    end++;
  }
  const trail = TRAILING.exec(path)?.[0] ?? "";
  return { path: path.slice(0, path.length - trail.length), end: end - trail.length };
}

/**
 * Attaches each mention of a message: a file as read_file returns it (numbered lines, a long
 * file cut where read_file cuts it, with its note on how to read on), a folder as ls lists
 * it, an image through the hook when there is one. A mention of a path that does not exist is
 * left as text with a note; any other failure (outside the workspace, denied, a binary file)
 * refuses the message, so nothing is sent.
 *
 * @param text The message as typed.
 * @param source The sandboxed tools and the image hook.
 * @returns The message to send, or the line that says why it is not sent.
 *
 * @example
 * ```ts
 * import { expandMentions, type MentionSource } from "./mentions.ts";
 * const source: MentionSource = {
 *   run: (_tool, args) =>
 *     Promise.resolve(args.path === "a.txt"
 *       ? { ok: true as const, output: "1: hello" }
 *       : { ok: false as const, errorType: "not_found", message: "no such file" }),
 * };
 * const sent = await expandMentions("Explain @a.txt to @bob", source);
 * if (!("text" in sent) || !sent.text.includes('<file path="a.txt">\n1: hello\n</file>')) {
 *   throw new Error(JSON.stringify(sent));
 * }
 * if (sent.notes.length !== 1) throw new Error(JSON.stringify(sent.notes));
 * ```
 */
export async function expandMentions<I = never>(
  text: string,
  source: MentionSource<I>,
): Promise<ExpandedMessage<I> | { refused: string }> {
  const mentions = parseMentions(text);
  const blocks: string[] = [];
  const expanded: ExpandedMessage<I> = { text, attached: [], images: [], notes: [] };
  const seen = new Set<string>();
  for (const mention of mentions) {
    if (seen.has(mention.path)) continue;
    seen.add(mention.path);
    if (IMAGE_EXTENSIONS.test(mention.path)) {
      if (!source.image) continue;
      const image = await source.image(mention.path);
      if (!image.ok) return { refused: refusal(mention.path, image.message) };
      expanded.images.push(image.part);
      expanded.attached.push(mention.path);
      continue;
    }
    const attached = await attach(mention, source);
    if ("missing" in attached) {
      expanded.notes.push(
        `@${mention.path}: no such file or folder in the workspace; sent as text`,
      );
      continue;
    }
    if ("refused" in attached) return { refused: refusal(mention.path, attached.refused) };
    blocks.push(attached.block);
    expanded.attached.push(mention.path);
  }
  if (blocks.length > 0) expanded.text = `${text}\n\n${blocks.join("\n\n")}`;
  return expanded;
}

function refusal(path: string, why: string): string {
  return `Cannot attach "@${path}": ${why}. The message was not sent`;
}

async function attach(
  mention: Mention,
  source: MentionSource<unknown>,
): Promise<{ block: string } | { missing: true } | { refused: string }> {
  const path = mention.folder ? mention.path.replace(/\/+$/, "") || "." : mention.path;
  let result = mention.folder ? undefined : await source.run(READ_FILE, { path });
  let folder = mention.folder;
  // `@src` names a folder as well as `@src/` does.
  if (result && !result.ok && /is a directory/.test(result.message)) result = undefined;
  if (result === undefined) {
    result = await source.run(LS, { path });
    folder = true;
  }
  if (result.ok) {
    const tag = folder ? "folder" : "file";
    return { block: `<${tag} path="${mention.path}">\n${result.output}\n</${tag}>` };
  }
  if (result.errorType === "not_found") return { missing: true };
  return { refused: result.message };
}
