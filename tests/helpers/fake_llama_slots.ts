// A fake llama-server with several slots, for the slot scheduler's tests: real HTTP on
// 127.0.0.1 speaking the endpoints harness uses: GET /props (`total_slots`), POST
// /slots/N?action=save|restore (501 without a save path, as llama-server started without
// --slot-save-path answers) and streamed chat completions that honour `id_slot`. Each slot
// keeps its last prompt (one character a token, prompts rendered by prompt_cache.ts), a request
// processes only what follows the prefix it shares with its slot's cache, and the last chunk
// reports it as llama-server's `timings` (`prompt_n`, `cache_n`). A request without `id_slot`
// takes the idle slot whose cache it shares most with, else the least recently used one.

import { type ChatBody, renderPrompt } from "./prompt_cache.ts";

/** What the server did with one chat request. */
export interface SlotRequest {
  slot: number;
  /** Tokens processed and reused. */
  processed: number;
  reused: number;
  /** Requests running on any slot when this one started (itself included). */
  running: number;
  body: ChatBody;
}

/** A running fake llama-server. */
export interface FakeLlamaSlots extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1`. */
  readonly baseUrl: string;
  readonly requests: SlotRequest[];
  /** Slot actions received, e.g. `save 0 harness-s1.bin`. */
  readonly actions: string[];
  close(): Promise<void>;
}

/** Options of {@linkcode startFakeLlamaSlots}. */
export interface FakeLlamaSlotsOptions {
  slots: number;
  /** Answer slot actions (llama-server's --slot-save-path); otherwise 501. */
  savePath?: boolean;
  /** The reply's text for a request; default "done". */
  reply?: (body: ChatBody) => string;
  /** Awaited before a request's reply is sent, to keep it running. */
  hold?: (body: ChatBody) => Promise<void>;
}

interface Slot {
  cache: string;
  busy: boolean;
  lastUsed: number;
  waiters: (() => void)[];
}

function commonPrefix(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** The slot a request without `id_slot` lands on, as llama-server picks it; -1: all busy. */
function pickSlot(slots: Slot[], prompt: string): number {
  let best = -1;
  let bestShared = 0;
  let oldest = -1;
  slots.forEach((slot, i) => {
    if (slot.busy) return;
    const shared = commonPrefix(slot.cache, prompt);
    if (shared > bestShared && shared / prompt.length > 0.1) [best, bestShared] = [i, shared];
    if (oldest < 0 || slot.lastUsed < slots[oldest]!.lastUsed) oldest = i;
  });
  return best >= 0 ? best : oldest;
}

/**
 * Starts the fake server.
 *
 * @example
 * ```ts
 * import { startFakeLlamaSlots } from "./fake_llama_slots.ts";
 * await using server = startFakeLlamaSlots({ slots: 2 });
 * const props = await (await fetch(server.baseUrl.replace("/v1", "/props"))).json();
 * if (props.total_slots !== 2) throw new Error();
 * ```
 */
export function startFakeLlamaSlots(options: FakeLlamaSlotsOptions): FakeLlamaSlots {
  const slots: Slot[] = Array.from(
    { length: options.slots },
    () => ({ cache: "", busy: false, lastUsed: 0, waiters: [] }),
  );
  const saved = new Map<string, string>();
  const requests: SlotRequest[] = [];
  const actions: string[] = [];
  let clock = 0;

  const acquire = async (id: number | undefined, prompt: string): Promise<number> => {
    for (;;) {
      const at = id === undefined ? pickSlot(slots, prompt) : id % slots.length;
      const slot = at >= 0 ? slots[at]! : undefined;
      if (slot && !slot.busy) {
        slot.busy = true;
        return at;
      }
      // Wait for this slot (pinned) or any slot to end its request.
      const waitOn = slot ? [slot] : slots;
      await new Promise<void>((resolve) => waitOn.forEach((s) => s.waiters.push(resolve)));
    }
  };
  const release = (at: number) => {
    const slot = slots[at]!;
    slot.busy = false;
    slot.lastUsed = ++clock;
    for (const slot of slots) slot.waiters.splice(0).forEach((wake) => wake());
  };

  const chat = async (body: ChatBody): Promise<Response> => {
    const prompt = renderPrompt(body);
    const pinned = typeof body.id_slot === "number" && body.id_slot >= 0 ? body.id_slot : undefined;
    const at = await acquire(pinned, prompt);
    const running = slots.filter((slot) => slot.busy).length;
    const slot = slots[at]!;
    const reused = Math.min(commonPrefix(slot.cache, prompt), prompt.length - 1);
    const processed = prompt.length - reused;
    requests.push({ slot: at, processed, reused, running, body });
    const text = options.reply?.(body) ?? "done";
    try {
      await options.hold?.(body);
    } finally {
      slot.cache = prompt + text;
      release(at);
    }
    const frames = [
      { choices: [{ index: 0, delta: { role: "assistant", content: text } }] },
      {
        choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
        usage: { prompt_tokens: prompt.length, completion_tokens: text.length },
        timings: { prompt_n: processed, cache_n: reused, predicted_n: text.length },
      },
    ];
    const sse = frames.map((frame) => `data: ${JSON.stringify(frame)}\n\n`).join("") +
      "data: [DONE]\n\n";
    return new Response(sse, { headers: { "content-type": "text/event-stream" } });
  };

  const slotAction = async (req: Request, id: number, action: string | null) => {
    if (!options.savePath) {
      return json(501, {
        error: {
          code: 501,
          message: "This server does not support slots action. Start it with `--slot-save-path`",
          type: "not_supported_error",
        },
      });
    }
    const { filename } = await req.json() as { filename: string };
    actions.push(`${action} ${id} ${filename}`);
    const slot = slots[id % slots.length]!;
    if (action === "save") {
      saved.set(filename, slot.cache);
      return json(200, { id_slot: id, filename, n_saved: slot.cache.length, n_written: 1 });
    }
    const cache = saved.get(filename);
    if (action !== "restore" || cache === undefined) {
      return json(400, { error: { code: 400, message: "Invalid action", type: "x" } });
    }
    slot.cache = cache;
    return json(200, { id_slot: id, filename, n_restored: cache.length, n_read: 1 });
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const path = url.pathname;
    if (req.method === "GET" && path === "/props") {
      return json(200, {
        default_generation_settings: { n_ctx: 100_000 },
        total_slots: options.slots,
      });
    }
    const slotPath = /^\/slots\/(\d+)$/.exec(path);
    if (req.method === "POST" && slotPath) {
      return await slotAction(req, Number(slotPath[1]), url.searchParams.get("action"));
    }
    if (req.method === "POST" && path === "/v1/chat/completions") {
      return await chat(await req.json() as ChatBody);
    }
    return json(404, { error: { code: 404, message: `no route ${path}`, type: "not_found" } });
  });
  const close = () => server.shutdown();
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    actions,
    close,
    [Symbol.asyncDispose]: close,
  };
}
