// The lines the REPL reads, queued: readline pushes each entered line (a composed message
// whole), and the main prompt and the questions asked during a turn take them in order.

/** A queue of lines from readline, so turn-time prompts and the main prompt share input. */
export class LineQueue {
  #lines: string[] = [];
  #waiters: ((line: string | null) => void)[] = [];
  #closed = false;

  push(line: string) {
    const waiter = this.#waiters.shift();
    if (waiter) waiter(line);
    else this.#lines.push(line);
  }
  close() {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter(null);
  }
  /** The next line; null at end of input or when `signal` aborts first. */
  next(signal?: AbortSignal): Promise<string | null> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#closed || signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = (value: string | null) => resolve(value);
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(null);
      }, { once: true });
    });
  }
  get closed(): boolean {
    return this.#closed;
  }
  /** Whether a line is waiting to be read. */
  get hasLine(): boolean {
    return this.#lines.length > 0;
  }
}
