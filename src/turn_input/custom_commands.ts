// Custom slash commands: Markdown files whose text becomes the user's message when they type
// `/name args`, in the format Claude Code users already have (front matter `description`
// and `argument-hint`; `$ARGUMENTS`, `$1`..`$9`). They come from the user's commands/ folder
// and, once the project is trusted, the project's .harness/commands/ and .claude/commands/.

import { join, relative, resolve, sep } from "node:path";
import { compareNames } from "../platform/name_order.ts";

/** Where a command came from. */
export type CommandScope = "user" | "project";

/** One custom command. */
export interface CustomCommand {
  /** The name typed after `/`; a file in a subfolder is `folder:name`. */
  name: string;
  description: string;
  argumentHint?: string;
  /** The Markdown body: the message template. */
  body: string;
  file: string;
  scope: CommandScope;
}

/** A folder of command files. */
export interface CommandFolder {
  dir: string;
  scope: CommandScope;
}

/** Bytes of one command file read at most; a longer file is skipped with a note. */
const MAX_COMMAND_BYTES = 64 * 1024;
/** Names a command may have: what can be typed after `/` and completed. */
const NAME = /^[a-z0-9][a-z0-9_.-]*(:[a-z0-9][a-z0-9_.-]*)*$/i;

/**
 * Splits a command file into its front matter fields and body. The front matter is read as
 * `key: value` lines, not as YAML: Claude Code's `argument-hint: [message]` is text to show,
 * which a YAML parser would turn into a list.
 *
 * @param text The file's text.
 * @returns The description and argument hint (when given) and the body.
 *
 * @example
 * ```ts
 * import { parseCommandFile } from "./custom_commands.ts";
 * const parsed = parseCommandFile('---\ndescription: "Review a change"\nargument-hint: [file]\n---\nReview $1.\n');
 * if (parsed.description !== "Review a change" || parsed.argumentHint !== "[file]") throw new Error();
 * if (parsed.body !== "Review $1.") throw new Error(parsed.body);
 * ```
 */
export function parseCommandFile(
  text: string,
): { description?: string; argumentHint?: string; body: string } {
  const clean = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const match = /^---\n([^]*?)\n---(?:\n|$)/.exec(clean);
  if (!match) return { body: clean.trim() };
  const fields: Record<string, string> = {};
  for (const line of match[1]!.split("\n")) {
    const field = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (field) fields[field[1]!.toLowerCase()] = unquote(field[2]!.trim());
  }
  const body = clean.slice(match[0].length).trim();
  return {
    ...(fields.description ? { description: fields.description } : {}),
    ...(fields["argument-hint"] ? { argumentHint: fields["argument-hint"] } : {}),
    body,
  };
}

function unquote(value: string): string {
  const quoted = /^"(.*)"$/.exec(value) ?? /^'(.*)'$/.exec(value);
  return quoted ? quoted[1]! : value;
}

/**
 * Splits a command's arguments as a shell would split words: spaces separate, quotes group.
 *
 * @example
 * ```ts
 * import { splitArguments } from "./custom_commands.ts";
 * const words = splitArguments(`src/a.ts "two words" 'it''s'`);
 * if (words.join("|") !== "src/a.ts|two words|its") throw new Error(words.join("|"));
 * ```
 */
export function splitArguments(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word = (word ?? "") + char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= "";
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + char;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * A template with its arguments put in, as Claude Code does for Markdown commands and skills:
 * `$ARGUMENTS` is every argument as typed, `$1`..`$9` each word (empty when not given). A
 * template that uses neither gets the arguments appended as `ARGUMENTS: ...`, so
 * `/review src/a.ts` still says which file.
 *
 * @param template A command's or a skill's body.
 * @param args What was typed after the name.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { expandArguments } from "./custom_commands.ts";
 * if (expandArguments("Fix $1 ($ARGUMENTS)", "12 x") !== "Fix 12 (12 x)") throw new Error();
 * if (expandArguments("Review.", "a.ts") !== "Review.\n\nARGUMENTS: a.ts") throw new Error();
 * ```
 */
export function expandArguments(template: string, args: string): string {
  const typed = args.trim();
  const uses = /\$ARGUMENTS|\$[1-9]/.test(template);
  const words = splitArguments(typed);
  const text = template
    .replace(/\$ARGUMENTS/g, () => typed)
    .replace(/\$([1-9])/g, (_all, n: string) => words[Number(n) - 1] ?? "");
  return !uses && typed !== "" ? `${text}\n\nARGUMENTS: ${typed}` : text;
}

/**
 * The message a command sends: its body with the arguments put in ({@linkcode expandArguments}).
 *
 * @param command The command.
 * @param args What was typed after the name.
 * @returns The message text.
 *
 * @example
 * ```ts
 * import { expandCommand } from "./custom_commands.ts";
 * const command = { name: "fix", description: "", body: "Fix issue $1 in $2. ($ARGUMENTS)", file: "f", scope: "user" as const };
 * const text = expandCommand(command, "12 src/a.ts");
 * if (text !== "Fix issue 12 in src/a.ts. (12 src/a.ts)") throw new Error(text);
 * ```
 */
export function expandCommand(command: CustomCommand, args: string): string {
  return expandArguments(command.body, args);
}

/** What loading the command folders found. */
export interface LoadedCommands {
  commands: CustomCommand[];
  /** Lines for the user: files skipped, and why. */
  problems: string[];
}

/**
 * The Markdown files of command folders (recursively; a subfolder's file is `folder:name`).
 * Symbolic links are followed only to files inside the folder's own tree.
 *
 * @param folder The folder.
 * @returns Each file with the command name it defines.
 */
export function commandFiles(folder: string): { file: string; name: string }[] {
  let root: string;
  try {
    root = Deno.realPathSync(folder);
  } catch {
    return [];
  }
  const found: { file: string; name: string }[] = [];
  const walk = (dir: string, prefix: string[], depth: number) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)].sort((a, b) => compareNames(a.name, b.name));
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory && depth < 3) walk(path, [...prefix, entry.name], depth + 1);
      else if ((entry.isFile || entry.isSymlink) && entry.name.endsWith(".md")) {
        found.push({ file: path, name: [...prefix, entry.name.slice(0, -3)].join(":") });
      }
    }
  };
  walk(root, [], 0);
  return found.filter(({ file }) => {
    try {
      const real = Deno.realPathSync(file);
      const rel = relative(root, real);
      return !rel.startsWith("..") && !rel.startsWith(sep) && Deno.statSync(real).isFile;
    } catch {
      return false;
    }
  });
}

/**
 * Loads the commands of several folders. The first folder that defines a name keeps it (pass
 * the user's folder first: a project cannot replace the user's own commands); a name
 * `reserved` (a built-in command) is skipped with a note.
 *
 * @param folders The folders in order of precedence.
 * @param options `reserved`: built-in names; `allow`: whether a project file may be used
 *   (its trust), checked per file.
 * @returns The commands sorted by name, and the problems.
 *
 * @example
 * ```ts
 * import { loadCustomCommands } from "./custom_commands.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/review.md`, "---\ndescription: Review\n---\nReview $ARGUMENTS");
 * Deno.writeTextFileSync(`${dir}/help.md`, "mine");
 * const { commands, problems } = loadCustomCommands([{ dir, scope: "user" }], { reserved: ["help"] });
 * if (commands.map((c) => c.name).join() !== "review" || problems.length !== 1) throw new Error();
 * ```
 */
export function loadCustomCommands(
  folders: readonly CommandFolder[],
  options: { reserved?: readonly string[]; allow?: (file: string) => boolean } = {},
): LoadedCommands {
  const reserved = new Set(options.reserved ?? []);
  const byName = new Map<string, CustomCommand>();
  const problems: string[] = [];
  for (const folder of folders) {
    for (const { file, name } of commandFiles(resolve(folder.dir))) {
      if (!NAME.test(name)) {
        problems.push(`Skipping command file "${file}": its name cannot be typed as /${name}`);
        continue;
      }
      if (reserved.has(name)) {
        problems.push(`Skipping command file "${file}": /${name} is a built-in command`);
        continue;
      }
      if (byName.has(name)) continue;
      if (folder.scope === "project" && options.allow && !options.allow(file)) continue;
      const text = readSmall(file);
      if (text === undefined) {
        problems.push(`Skipping command file "${file}": over ${MAX_COMMAND_BYTES} bytes`);
        continue;
      }
      const parsed = parseCommandFile(text);
      byName.set(name, {
        name,
        description: parsed.description ?? firstLine(parsed.body),
        ...(parsed.argumentHint ? { argumentHint: parsed.argumentHint } : {}),
        body: parsed.body,
        file,
        scope: folder.scope,
      });
    }
  }
  const commands = [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
  return { commands, problems };
}

function readSmall(file: string): string | undefined {
  try {
    if (Deno.statSync(file).size > MAX_COMMAND_BYTES) return undefined;
    return Deno.readTextFileSync(file);
  } catch {
    return "";
  }
}

function firstLine(body: string): string {
  const line = body.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/**
 * The command folders of a workspace: the user's (in harness's config folder), then the
 * project's .harness/commands/ and .claude/commands/.
 *
 * @param cwd The workspace.
 * @param userConfigDir harness's config folder.
 *
 * @example
 * ```ts
 * import { commandFolders } from "./custom_commands.ts";
 * const folders = commandFolders("/w", "/c");
 * if (folders.map((f) => f.scope).join() !== "user,project,project") throw new Error();
 * ```
 */
export function commandFolders(cwd: string, userConfigDir: string): CommandFolder[] {
  return [
    { dir: join(userConfigDir, "commands"), scope: "user" },
    { dir: join(cwd, ".harness", "commands"), scope: "project" },
    { dir: join(cwd, ".claude", "commands"), scope: "project" },
  ];
}
