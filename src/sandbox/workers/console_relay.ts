// What a plugin prints (console.*, Deno.stdout, Deno.stderr in its worker) reaches the terminal
// only through here: through the same sanitiser as model text (platform/terminal_text.ts), so
// escape sequences (OSC 52 clipboard writes, titles, hidden text) show as text, and within a
// rate and size cap, so a plugin cannot flood the terminal or the REPL's prompt. Lines over
// the rate are dropped and counted; the count is said once output is allowed again, or when
// the call ends.

import { terminalSafe } from "../../platform/terminal_text.ts";

/** Limits of a {@linkcode ConsoleRelay}. */
export interface ConsoleLimits {
  /** Characters of one message shown (the rest is cut with a marker). Default 2,000. */
  maxMessage?: number;
  /** Messages a second, on average. Default 20. */
  perSecond?: number;
  /** Messages allowed at once before the rate applies. Default 50. */
  burst?: number;
}

/** Where relayed text goes and what time it is (tests inject both). */
export interface ConsoleSink {
  write(text: string): void;
  now(): number;
}

const STDERR: ConsoleSink = {
  write: (text) => {
    try {
      Deno.stderr.writeSync(new TextEncoder().encode(text));
    } catch { /* stderr closed: nothing to show it on */ }
  },
  now: () => performance.now(),
};

/**
 * Relays plugin output to the terminal, sanitised and capped.
 *
 * @example
 * ```ts
 * import { ConsoleRelay } from "./console_relay.ts";
 * const out: string[] = [];
 * const relay = new ConsoleRelay({ burst: 1, perSecond: 1 }, { write: (t) => out.push(t), now: () => 0 });
 * relay.relay("hi \x1b]52;c;SGk=\x07");
 * relay.relay("dropped");
 * if (out.length !== 1 || out[0]!.includes("\x1b")) throw new Error(JSON.stringify(out));
 * ```
 */
export class ConsoleRelay {
  readonly #maxMessage: number;
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #sink: ConsoleSink;
  #tokens: number;
  #at: number;
  #dropped = 0;

  constructor(limits: ConsoleLimits = {}, sink: ConsoleSink = STDERR) {
    this.#maxMessage = limits.maxMessage ?? 2_000;
    this.#perSecond = limits.perSecond ?? 20;
    this.#burst = limits.burst ?? 50;
    this.#sink = sink;
    this.#tokens = this.#burst;
    this.#at = sink.now();
  }

  /**
   * Shows one message of a plugin (a console call, or a write to its stdout or stderr).
   *
   * @param text The message as the plugin gave it.
   */
  relay(text: string): void {
    const now = this.#sink.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#at) / 1000 * this.#perSecond);
    this.#at = now;
    if (this.#tokens < 1) {
      this.#dropped++;
      return;
    }
    this.#tokens--;
    this.flush();
    const cut = text.length > this.#maxMessage
      ? `${text.slice(0, this.#maxMessage)} [... ${text.length - this.#maxMessage} characters cut]`
      : text;
    this.#sink.write(`${terminalSafe(cut.replace(/\n$/, ""))}\n`);
  }

  /**
   * Says how many lines were dropped since the last line shown, if any. The sandbox worker
   * calls it when a call ends: a flood that ends the call is followed by no line to say it.
   */
  flush(): void {
    if (this.#dropped === 0) return;
    this.#sink.write(
      `[${this.#dropped} more line${this.#dropped === 1 ? "" : "s"} of plugin output ` +
        "not shown: over the rate limit]\n",
    );
    this.#dropped = 0;
  }
}

/** The relay every tool host shares unless given another: the process's stderr. */
export const STDERR_RELAY: ConsoleRelay = new ConsoleRelay();
