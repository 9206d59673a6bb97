// Ctrl-G at the REPL prompt: the message so far goes into a temporary file that the user's
// editor ($VISUAL, else $EDITOR, else vi; notepad on Windows) opens on the terminal, and the
// saved text comes back as the message. The editor is the user's own program, run as they
// would run it; the file is private to the user and removed afterwards.

/** How the editor is found and run (seams for tests). */
export interface EditorOptions {
  env?: (name: string) => string | undefined;
  /** Where the line saying what went wrong goes. */
  warn?: (line: string) => void;
}

/**
 * The editor command: $VISUAL, else $EDITOR, else vi (notepad on Windows).
 *
 * @example
 * ```ts
 * import { editorCommand } from "./external_editor.ts";
 * const env = (name: string) => name === "EDITOR" ? "nano -w" : undefined;
 * if (editorCommand(env) !== "nano -w") throw new Error();
 * ```
 */
export function editorCommand(env: (name: string) => string | undefined): string {
  const named = env("VISUAL")?.trim() || env("EDITOR")?.trim();
  return named || (Deno.build.os === "windows" ? "notepad" : "vi");
}

/**
 * Opens `text` in the user's editor and returns what they saved (undefined when the editor
 * could not start or exited with an error, with a line saying so).
 *
 * @param text The message so far.
 * @param options The environment and where warnings go.
 * @returns The edited text.
 */
export async function editInEditor(
  text: string,
  options: EditorOptions = {},
): Promise<string | undefined> {
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const warn = options.warn ?? ((line: string) => console.error(line));
  const command = editorCommand(env);
  const file = await Deno.makeTempFile({ prefix: "harness_message_", suffix: ".md" });
  try {
    await Deno.writeTextFile(file, text);
    // The command may carry arguments ("code --wait"), so a shell runs it, with the file as
    // its own argument (never spliced into the command text).
    const [program, args] = Deno.build.os === "windows"
      ? ["cmd", ["/d", "/s", "/c", `${command} "${file}"`]]
      : ["sh", ["-c", `${command} "$1"`, "sh", file]];
    const status = await new Deno.Command(program, {
      args,
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    if (!status.success) {
      warn(`The editor "${command}" exited with code ${status.code}: the message is unchanged`);
      return undefined;
    }
    return await Deno.readTextFile(file);
  } catch (error) {
    warn(
      `Cannot run the editor "${command}": ${
        error instanceof Error ? error.message : String(error)
      }: set $VISUAL or $EDITOR`,
    );
    return undefined;
  } finally {
    await Deno.remove(file).catch(() => {});
  }
}
