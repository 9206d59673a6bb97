// Runs the real CLI on a pseudo-terminal (util-linux `script`), so tests can type keys over
// time and read what a user would see. Linux only; `script` ships with util-linux.

import { type CliSandbox, MAIN } from "./run_cli.ts";

/** `part` as one word for `sh -c` (single quotes, with inner quotes escaped). */
export const shellQuote = (part: string) => `'${part.replaceAll("'", `'\\''`)}'`;

/** A CLI process on a pseudo-terminal. */
export interface PtySession extends AsyncDisposable {
  /** Types `text` (keys as bytes: "\r" is Enter, "\x03" Ctrl-C, "\x04" Ctrl-D). */
  type(text: string): Promise<void>;
  /** Everything written to the terminal so far, escape sequences included. */
  readonly output: string;
  /** Waits until `test` holds for the output (polling), or throws with the output. */
  waitFor(test: (output: string) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Waits for the process to end and returns its exit code. */
  exit(): Promise<number>;
}

/**
 * Starts `harness ARGS` in the sandbox on a pseudo-terminal of 100 columns.
 *
 * @param options env: variables added to the sandbox's (HARNESS_TRACE_STARTUP for
 *   {@linkcode startupSettled}).
 */
export function startPty(
  sandbox: CliSandbox,
  args: string[],
  options: { env?: Record<string, string> } = {},
): PtySession {
  const argv = [Deno.execPath(), "run", "-A", "--no-prompt", "--unstable-worker-options", MAIN];
  const child = new Deno.Command("script", {
    args: [
      "-qefc",
      `stty cols 100 rows 40; exec ${[...argv, ...args].map(shellQuote).join(" ")}`,
      "/dev/null",
    ],
    cwd: sandbox.cwd,
    env: { ...sandbox.env, ...options.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  let output = "";
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of child.stdout) output += decoder.decode(chunk, { stream: true });
  })();
  const stderr = new Response(child.stderr).text();
  let status: Promise<Deno.CommandStatus> | undefined;
  const session: PtySession = {
    get output() {
      return output;
    },
    async type(text) {
      await writer.write(new TextEncoder().encode(text));
    },
    async waitFor(test, what, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!test(output)) {
        if (Date.now() > deadline) {
          throw new Error(`Timed out waiting for ${what}; the terminal showed:\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async exit() {
      status ??= child.status;
      const { code } = await status;
      await reading;
      await stderr;
      return code;
    },
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGKILL");
      } catch {
        // already ended
      }
      await writer.close().catch(() => {});
      await session.exit().catch(() => {});
    },
  };
  return session;
}

/**
 * Starts the REPL (`harness ARGS`) on a pseudo-terminal and waits until it reads input (it
 * turns bracketed paste on then), so keys typed next reach the prompt, not the type-ahead.
 */
export async function startReplPty(sandbox: CliSandbox, args: string[]): Promise<PtySession> {
  const pty = startPty(sandbox, args);
  try {
    await pty.waitFor((out) => out.includes("\x1b[?2004h"), "the prompt");
  } catch (error) {
    await pty[Symbol.asyncDispose]();
    throw error;
  }
  return pty;
}

/** The environment that makes the REPL say when its start-up has settled. */
export const TRACE_STARTUP = { HARNESS_TRACE_STARTUP: "1" };

/** The output without the start-up trace's lines, as the terminal shows it untraced. */
export function withoutTrace(output: string): string {
  return output.replace(/startup +\d+\.\d ms {2}[^\r\n]*\r\n/g, "");
}

/**
 * Waits until everything the REPL loads in the background after showing its prompt is done
 * (its start-up trace says "start-up settled": start it with {@linkcode TRACE_STARTUP}) and
 * the prompt has been drawn again after that, as the last line on screen.
 */
export async function startupSettled(pty: PtySession): Promise<void> {
  await pty.waitFor((out) => out.includes("  start-up settled\r\n"), "start-up to settle");
  await pty.waitFor((out) => {
    const after = out.slice(out.lastIndexOf("  start-up settled\r\n"));
    return after.includes("> ") && lastScreenLine(out).trim() === ">";
  }, "the prompt drawn after start-up settled");
}

/**
 * What the terminal shows on its last line, as a user reads it: carriage returns, cursor
 * column moves (CSI n G, CSI n C/D) and line erases (CSI K, CSI J) applied, other escape
 * sequences dropped.
 */
export function lastScreenLine(output: string): string {
  let line: string[] = [];
  let col = 0;
  for (let i = 0; i < output.length; i++) {
    const ch = output[i]!;
    if (ch === "\n") {
      line = [];
      col = 0;
    } else if (ch === "\r") {
      col = 0;
    } else if (ch === "\x1b" && output[i + 1] === "[") {
      let j = i + 2;
      while (j < output.length && !/[@-~]/.test(output[j]!)) j++;
      const params = output.slice(i + 2, j);
      const n = Number(params.replace("?", "") || "0");
      switch (output[j]) {
        case "G":
          col = Math.max(0, (n || 1) - 1);
          break;
        case "C":
          col += n || 1;
          break;
        case "D":
          col = Math.max(0, col - (n || 1));
          break;
        case "K":
          if (n === 2) line = [];
          else if (n === 0) line = line.slice(0, col);
          break;
        case "J":
          if (n === 0) line = line.slice(0, col);
          break;
      }
      i = j;
    } else if (ch >= " ") {
      while (line.length < col) line.push(" ");
      line[col++] = ch;
    }
  }
  return line.join("");
}
