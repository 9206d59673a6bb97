// The user's own editor on a temporary file: $VISUAL, else $EDITOR, else vi (notepad on
// Windows), as git finds it. Ctrl-G at the REPL prompt edits the message in it, and the
// approval prompt's "Edit" answer (edit_prompt.ts) a call's arguments. It runs as the user's
// program (not sandboxed: they chose it) on a file private to the user (0600), removed after.

/** How the editor is found and run (seams for tests). */
export interface EditorOptions {
  env?: (name: string) => string | undefined;
  /** Where the line saying what went wrong goes. */
  warn?: (line: string) => void;
  /** The temporary file's suffix (the editor picks its syntax by it); default `.md`. */
  suffix?: string;
  /**
   * Whether the editor gets the terminal's input: false when input is piped (the editor must
   * not read the answers meant for harness). Default true.
   */
  terminal?: boolean;
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
 * @param text What the file holds when the editor opens (the message so far, the arguments).
 * @param options The environment, where warnings go, the file's suffix and the terminal.
 * @returns The edited text.
 */
export async function editInEditor(
  text: string,
  options: EditorOptions = {},
): Promise<string | undefined> {
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const warn = options.warn ?? ((line: string) => console.error(line));
  const command = editorCommand(env);
  const file = await Deno.makeTempFile({ prefix: "harness_", suffix: options.suffix ?? ".md" });
  try {
    if (Deno.build.os !== "windows") await Deno.chmod(file, 0o600);
    await Deno.writeTextFile(file, text);
    // The command may carry arguments ("code --wait"), so a shell runs it, with the file as
    // its own argument (never spliced into the command text).
    const [program, args] = Deno.build.os === "windows"
      ? ["cmd", ["/d", "/s", "/c", `${command} "${file}"`]]
      : ["sh", ["-c", `${command} "$1"`, "sh", file]];
    const status = await new Deno.Command(program, {
      args,
      stdin: options.terminal === false ? "null" : "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    if (!status.success) {
      warn(`The editor "${command}" exited with code ${status.code}: nothing was changed`);
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
