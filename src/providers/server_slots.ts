// What a model server says about its slots, so a subagent does not evict its parent's cached
// prompt: llama-server states how many requests it serves at once (`/props` `total_slots`,
// from --parallel) and can save and restore one slot's cache (`POST /slots/N?action=save` and
// `restore`, only when started with --slot-save-path: otherwise 501, which is how harness
// finds out). Other servers say nothing and are left to queue requests themselves. Never throws.

import { isRecord } from "../platform/json_values.ts";
import { fetchJson } from "./fetch_json.ts";
import { httpRequest } from "./http_request.ts";

/** How children share the server with their parent (slot_scheduler.ts acts on it). */
export type SlotLayout =
  /** llama-server with two or more slots: the parent keeps slot 0, children take the others. */
  | { kind: "slots"; total: number }
  /** llama-server with one slot: the parent's cache is saved and restored around children. */
  | { kind: "one_slot" }
  /** Any other server: children's requests are sent as they come. */
  | { kind: "unmanaged" };

/**
 * The layout a llama-server `/props` body states; `unmanaged` for any other body.
 *
 * @example
 * ```ts
 * import { readSlotLayout } from "./server_slots.ts";
 * if (readSlotLayout({ total_slots: 4 }).kind !== "slots") throw new Error();
 * if (readSlotLayout({ total_slots: 1 }).kind !== "one_slot") throw new Error();
 * if (readSlotLayout({ models: [] }).kind !== "unmanaged") throw new Error();
 * ```
 */
export function readSlotLayout(props: unknown): SlotLayout {
  const total = isRecord(props) ? props.total_slots : undefined;
  if (typeof total !== "number" || !Number.isInteger(total) || total < 1) {
    return { kind: "unmanaged" };
  }
  return total === 1 ? { kind: "one_slot" } : { kind: "slots", total };
}

/** Where a server is and how to reach it. */
export interface SlotServer {
  /** The endpoint with its version path (`http://127.0.0.1:8080/v1`), as the provider has it. */
  baseUrl: string;
  apiKey?: string;
}

function rootOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v\d+$/, "");
}

/**
 * Asks the server for its slot layout (llama-server's `/props`).
 *
 * @param server The endpoint and key.
 * @param options Timeout (default 3 s) and abort signal.
 * @returns The layout; `unmanaged` when the server does not state one.
 *
 * @example
 * ```ts
 * import { probeSlotLayout } from "./server_slots.ts";
 * const layout = await probeSlotLayout({ baseUrl: "http://127.0.0.1:9/v1" }, { timeoutMs: 300 });
 * if (layout.kind !== "unmanaged") throw new Error();
 * ```
 */
export async function probeSlotLayout(
  server: SlotServer,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<SlotLayout> {
  const props = await fetchJson(`${rootOf(server.baseUrl)}/props`, {
    timeoutMs: options.timeoutMs ?? 3000,
    ...(server.apiKey ? { apiKey: server.apiKey } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return readSlotLayout(props);
}

/** How a slot action ended. */
export type SlotActionResult =
  | { kind: "done"; tokens: number }
  /** The server has no --slot-save-path (or no slot actions at all). */
  | { kind: "not_supported"; message: string }
  | { kind: "failed"; message: string };

/** Saves and restores a slot's cache; slot_scheduler.ts takes it as a seam. */
export interface SlotActions {
  save(slot: number, filename: string): Promise<SlotActionResult>;
  restore(slot: number, filename: string): Promise<SlotActionResult>;
}

/** The server's error message from an error body (`{ "error": { "message" } }`). */
function errorMessage(body: unknown, status: number): string {
  const error = isRecord(body) ? body.error : undefined;
  const message = isRecord(error) ? error.message : undefined;
  return typeof message === "string" ? message : `HTTP ${status}`;
}

async function slotAction(
  server: SlotServer,
  request: { slot: number; action: "save" | "restore"; filename: string; timeoutMs: number },
): Promise<SlotActionResult> {
  const url = `${rootOf(server.baseUrl)}/slots/${request.slot}?action=${request.action}`;
  try {
    const response = await httpRequest(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(server.apiKey ? { authorization: `Bearer ${server.apiKey}` } : {}),
      },
      body: JSON.stringify({ filename: request.filename }),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const body: unknown = await response.json().catch(() => undefined);
    // 501: no --slot-save-path; 404: a server without slot actions at all.
    if (response.status === 501 || response.status === 404) {
      return { kind: "not_supported", message: errorMessage(body, response.status) };
    }
    if (!response.ok) return { kind: "failed", message: errorMessage(body, response.status) };
    const tokens = isRecord(body) ? body.n_saved ?? body.n_restored : undefined;
    return { kind: "done", tokens: typeof tokens === "number" ? tokens : 0 };
  } catch (error) {
    return { kind: "failed", message: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * llama-server's slot actions over HTTP. Saving a long prompt's cache writes its whole KV
 * state to the server's disk, so the timeout is generous (default 120 s).
 *
 * @param server The endpoint and key.
 * @param options The timeout of one action.
 * @returns The actions.
 *
 * @example
 * ```ts
 * import { llamaSlotActions } from "./server_slots.ts";
 * const actions = llamaSlotActions({ baseUrl: "http://127.0.0.1:9/v1" }, { timeoutMs: 300 });
 * const result = await actions.save(0, "harness-parent.bin");
 * if (result.kind !== "failed") throw new Error(result.kind);
 * ```
 */
export function llamaSlotActions(
  server: SlotServer,
  options: { timeoutMs?: number } = {},
): SlotActions {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return {
    save: (slot, filename) => slotAction(server, { slot, action: "save", filename, timeoutMs }),
    restore: (slot, filename) =>
      slotAction(server, { slot, action: "restore", filename, timeoutMs }),
  };
}

/**
 * The request field that pins a request to a slot (llama-server's `id_slot`), merged into the
 * chat request body (the provider's `extraBody`).
 *
 * @example
 * ```ts
 * import { slotRequestFields } from "./server_slots.ts";
 * if (slotRequestFields(1).id_slot !== 1) throw new Error();
 * ```
 */
export function slotRequestFields(slot: number): { id_slot: number } {
  return { id_slot: slot };
}
