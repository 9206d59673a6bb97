// Runs subagents' requests beside their parent's without evicting the parent's cached prompt
// (server_slots.ts says how the server is laid out). With several llama-server slots the parent
// keeps slot 0 and up to `total - 1` children run at once, each on a slot of its own; with one
// slot children run one at a time and the parent's slot is saved before the first and restored
// after the last (or, without --slot-save-path, harness says once that the cache is rebuilt);
// other servers get every request at once. The rest wait in order for a lease.

import type { Provider } from "./provider.ts";
import type { SlotActions, SlotLayout } from "./server_slots.ts";

/** A child's turn on the server: the slot its requests pin (`id_slot`), if any. */
export interface SlotLease {
  /** The slot to send as `id_slot`; undefined: let the server choose. */
  slot?: number;
  /** Gives the slot back; the last lease of a batch restores the parent's slot first. */
  release(): Promise<void>;
}

/** Options of {@linkcode SlotScheduler}. */
export interface SlotSchedulerOptions {
  layout: SlotLayout;
  /** Save and restore (llama-server's slot actions); needed for one slot. */
  actions?: SlotActions;
  /** The file name the parent's slot is saved under: one per conversation. */
  saveName: string;
  /** Told once what the user should know (the parent's cache may be rebuilt). */
  onNote?: (text: string) => void;
  /**
   * The slot the parent pins when the server has several (default 0). Sessions sharing one
   * server can spread out by choosing different ones (such as the process id modulo the count).
   */
  parentSlot?: number;
}

interface Waiter {
  grant: (lease: SlotLease | undefined) => void;
}

/**
 * Said once when one slot cannot be saved (llama-server without --slot-save-path). A server
 * that keeps prompts in RAM (--cache-ram, on by default in recent builds) may still bring the
 * conversation's back; /props does not say, so the note says "may".
 */
const REBUILD_NOTE = "The model server has one slot and no --slot-save-path: after each " +
  "subagent the conversation's cached prompt may be processed again, unless the server keeps " +
  "it in RAM (--cache-ram); start llama-server with --parallel 2, or with --slot-save-path DIR, " +
  "to be sure it is kept";

/** Hands out slots to children, saving and restoring the parent's when the server has one. */
export class SlotScheduler {
  readonly #options: SlotSchedulerOptions;
  readonly #free: number[];
  /** The parent's slot (0 with one slot, where children take turns on it). */
  readonly #parent: number;
  readonly #queue: Waiter[] = [];
  #active = 0;
  /** The save of the current batch (one slot), shared by its children. */
  #saving: Promise<boolean> | undefined;
  /** The restore that ended the last batch; a new batch saves only after it. */
  #restoring: Promise<void> = Promise.resolve();
  #noSaving = false;
  readonly #said = new Set<string>();

  constructor(options: SlotSchedulerOptions) {
    this.#options = options;
    const { layout } = options;
    const total = layout.kind === "slots" ? layout.total : 1;
    this.#parent = Math.abs(Math.trunc(options.parentSlot ?? 0)) % total;
    this.#free = layout.kind === "slots"
      ? Array.from({ length: total }, (_, i) => i).filter((slot) => slot !== this.#parent)
      : layout.kind === "one_slot"
      ? [this.#parent]
      : [];
  }

  /** How many children may run at once. */
  get capacity(): number {
    const { layout } = this.#options;
    return layout.kind === "slots" ? layout.total - 1 : layout.kind === "one_slot" ? 1 : Infinity;
  }

  /** The slot the parent's requests pin, so no child lands on it; undefined: any. */
  get parentSlot(): number | undefined {
    return this.#options.layout.kind === "slots" ? this.#parent : undefined;
  }

  /**
   * Waits for a turn. Resolves undefined when `signal` aborts first (the child never started).
   *
   * @param signal Stops waiting.
   * @returns The lease; release it when the child's request (or whole run) ends.
   */
  acquire(signal?: AbortSignal): Promise<SlotLease | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    if (this.#queue.length === 0 && this.#active < this.capacity) return this.#start();
    return new Promise((resolve) => {
      const waiter: Waiter = { grant: resolve };
      this.#queue.push(waiter);
      signal?.addEventListener("abort", () => {
        const at = this.#queue.indexOf(waiter);
        if (at >= 0) {
          this.#queue.splice(at, 1);
          resolve(undefined);
        }
      }, { once: true });
    });
  }

  async #start(): Promise<SlotLease> {
    this.#active++;
    const slot = this.#options.layout.kind === "unmanaged" ? undefined : this.#free.shift();
    if (this.#options.layout.kind === "one_slot") await this.#saveParent();
    let released = false;
    return {
      ...(slot === undefined ? {} : { slot }),
      release: () => {
        if (released) return Promise.resolve();
        released = true;
        return this.#release(slot);
      },
    };
  }

  async #release(slot: number | undefined): Promise<void> {
    this.#active--;
    if (slot !== undefined) this.#free.push(slot);
    const next = this.#queue.shift();
    if (next) {
      next.grant(await this.#start());
      return;
    }
    if (this.#active === 0 && this.#saving) await this.#restoreParent();
  }

  /** Saves the parent's slot once per batch; false when it could not be saved. */
  #saveParent(): Promise<boolean> {
    this.#saving ??= (async () => {
      await this.#restoring;
      const { actions, saveName } = this.#options;
      if (this.#noSaving || !actions) {
        this.#noSaving = true;
        this.#note(REBUILD_NOTE);
        return false;
      }
      const saved = await actions.save(this.#parent, saveName);
      if (saved.kind === "done") return true;
      if (saved.kind === "not_supported") this.#noSaving = true;
      this.#note(
        saved.kind === "not_supported" ? REBUILD_NOTE : `Cannot save the conversation's slot ` +
          `before a subagent: ${saved.message}: its cached prompt is processed again afterwards`,
      );
      return false;
    })();
    return this.#saving;
  }

  async #restoreParent(): Promise<void> {
    const saving = this.#saving;
    this.#saving = undefined;
    this.#restoring = (async () => {
      if (!await saving) return;
      const { actions, saveName } = this.#options;
      const restored = await actions?.restore(this.#parent, saveName);
      if (restored && restored.kind !== "done") {
        this.#note(
          `Cannot restore the conversation's slot after a subagent: ${restored.message}: its ` +
            "cached prompt is processed again",
        );
      }
    })();
    await this.#restoring;
  }

  #note(text: string): void {
    if (this.#said.has(text)) return;
    this.#said.add(text);
    this.#options.onNote?.(text);
  }
}

/**
 * A provider whose requests pin a slot (`ModelRequest.slot`): a subagent's its lease's, the
 * parent's its own. `slot()` is read at each request (awaited, so the first request can wait
 * for the server's layout); undefined lets the server choose. Every other member is the
 * provider's own.
 *
 * @param provider The run's provider.
 * @param slot The slot to pin now.
 * @returns The provider as the conversation uses it.
 *
 * @example
 * ```ts
 * import { pinnedProvider } from "./slot_scheduler.ts";
 * import { answer, ScriptedProvider } from "./scripted.ts";
 * let asked: number | undefined;
 * const pinned = pinnedProvider(new ScriptedProvider([(request) => (asked = request.slot, answer("hi"))]), () => 1);
 * await pinned.complete({ messages: [], tools: [] });
 * if (asked !== 1 || pinned.name !== "scripted") throw new Error();
 * ```
 */
export function pinnedProvider(
  provider: Provider,
  slot: () => number | undefined | Promise<number | undefined>,
): Provider {
  return {
    name: provider.name,
    model: provider.model,
    ...(provider.countTokens ? { countTokens: provider.countTokens.bind(provider) } : {}),
    async complete(request, onEvent) {
      const pinned = await slot();
      return await provider.complete(
        pinned === undefined ? request : { ...request, slot: pinned },
        onEvent,
      );
    },
  };
}
