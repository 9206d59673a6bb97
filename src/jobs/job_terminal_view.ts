// A copy of a background job's output for a terminal that shows it as it comes (an editor's
// terminal following the job over ACP): the command's colours are kept, every other escape
// sequence and control is dropped (TerminalStreamFilter, the sanitiser model text passes), so
// what a command prints cannot write the clipboard (OSC 52), retitle the window or drive the
// terminal. The copy is owner-only, beside the job's log, and grows with it.

import { TerminalStreamFilter } from "../platform/terminal_text.ts";

/** What follows a log as it grows (JobLog.follow): each chunk in order, then the end. */
export interface LogFollower {
  /** One chunk, in order; a failure stops only this follower. */
  chunk(bytes: Uint8Array): Promise<void>;
  /** The output has ended. */
  end(): void;
}

/**
 * Starts the terminal copy of `log` at `path` (a new file).
 *
 * @param log The job's log (JobLog).
 * @param path Where the copy goes.
 * @returns The path once the output so far is in it, or undefined when it cannot be made.
 */
export async function openTerminalView(
  log: { follow(follower: LogFollower): Promise<void> },
  path: string,
): Promise<string | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  } catch {
    return undefined;
  }
  const filter = new TerminalStreamFilter();
  const encoder = new TextEncoder();
  let open = true;
  const write = async (text: string) => {
    let bytes = encoder.encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
  };
  await log.follow({
    chunk: (bytes) => write(filter.push(bytes)),
    end: () => {
      if (!open) return;
      open = false;
      try {
        file.writeSync(encoder.encode(filter.end()));
        file.close();
      } catch { /* closed already */ }
    },
  });
  return path;
}
