// How a run's subagents share its model server (providers/slot_scheduler.ts acts on the
// layout): the server's slots are read once per model server (llama-server's /props), the
// parent conversations pin their own slot from then on, and each child takes a lease before
// its turn: a slot of its own, or its turn on one slot with the parent's cache saved and
// restored around it. A child's own children run one at a time on its slot.

import type { OpenedProvider } from "./provider_openers.ts";
import {
  llamaSlotActions,
  probeSlotLayout,
  type SlotLayout,
  type SlotServer,
} from "../providers/server_slots.ts";
import { type SlotLease, SlotScheduler } from "../providers/slot_scheduler.ts";

/** Where the run's model server is, as the provider opened it. */
export interface SlotsServer {
  opened(): OpenedProvider;
  apiKey?: string;
}

/** The run's slots: one scheduler per model server. */
export class SubagentSlots {
  readonly #server: SlotsServer;
  #for: OpenedProvider | undefined;
  #scheduler: Promise<SlotScheduler> | undefined;
  /** Where the scheduler's notes go now (the turn of the conversation whose child waits). */
  #listener: ((text: string) => void) | undefined;

  constructor(server: SlotsServer) {
    this.#server = server;
  }

  /** The scheduler of the model server in use, its layout asked for once. */
  scheduler(): Promise<SlotScheduler> {
    const opened = this.#server.opened();
    if (this.#scheduler && this.#for === opened) return this.#scheduler;
    this.#for = opened;
    const server: SlotServer | undefined = opened.baseUrl && opened.provider.name === "openai"
      ? { baseUrl: opened.baseUrl, ...(this.#server.apiKey ? { apiKey: this.#server.apiKey } : {}) }
      : undefined;
    // Read while the provider opened (the window probe's /props), else asked now.
    const layout: Promise<SlotLayout | undefined> = server === undefined
      ? Promise.resolve(undefined)
      : opened.slotLayout
      ? Promise.resolve(opened.slotLayout)
      : probeSlotLayout(server);
    this.#scheduler = layout.then(
      (layout) =>
        new SlotScheduler({
          layout: layout ?? { kind: "unmanaged" },
          ...(server ? { actions: llamaSlotActions(server) } : {}),
          // One file per process: conversations of other harness processes keep theirs.
          saveName: `harness-${Deno.pid}.bin`,
          // Sessions sharing one server spread over its slots.
          parentSlot: Deno.pid,
          onNote: (text) => this.#listener?.(text),
        }),
    );
    return this.#scheduler;
  }

  /** The slot parent conversations pin (the layout is asked for first); undefined: any. */
  async parentSlot(): Promise<number | undefined> {
    return (await this.scheduler()).parentSlot;
  }

  /**
   * A child's turn on the server.
   *
   * @param signal Stops waiting (the parent's turn was interrupted).
   * @param note Where the scheduler's notes go while this child waits and runs.
   * @returns The lease, or undefined when `signal` aborted first.
   */
  async lease(signal: AbortSignal, note: (text: string) => void): Promise<SlotLease | undefined> {
    const scheduler = await this.scheduler();
    this.#listener = note;
    return await scheduler.acquire(signal);
  }
}

/**
 * Leases for a child's own children: one at a time, on the child's slot (they share its
 * cache, which is rebuilt after them).
 */
export class SerialLeases {
  #last: Promise<unknown> = Promise.resolve();

  constructor(readonly slot: () => number | undefined) {}

  /**
   * Waits for the previous child to finish.
   *
   * @param signal Stops waiting.
   * @returns The lease, or undefined when `signal` aborted first.
   */
  async lease(signal: AbortSignal): Promise<SlotLease | undefined> {
    const previous = this.#last;
    let release!: () => void;
    this.#last = new Promise<void>((resolve) => release = resolve);
    const aborted = new Promise<"aborted">((resolve) =>
      signal.addEventListener("abort", () => resolve("aborted"), { once: true })
    );
    if (
      signal.aborted || await Promise.race([previous.then(() => "ready"), aborted]) === "aborted"
    ) {
      void previous.then(release);
      return undefined;
    }
    const slot = this.slot();
    return {
      ...(slot === undefined ? {} : { slot }),
      release: () => Promise.resolve(release()),
    };
  }
}
