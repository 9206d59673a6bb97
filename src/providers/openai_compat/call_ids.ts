// Tool-call ids on both sides of the wire: fresh canonical ids for calls whose server sent none
// (or repeated one), and the short 9-character wire ids that Mistral on vLLM insists on. The
// stream reader mints ids; the wire-message conversion maps them in "short" id mode.

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Makes a random tool-call id in OpenAI's style.
 *
 * @returns `call_` followed by 24 random [A-Za-z0-9] characters.
 *
 * @example
 * ```ts
 * import { generateCallId } from "./call_ids.ts";
 * if (!/^call_[A-Za-z0-9]{24}$/.test(generateCallId())) throw new Error("generateCallId");
 * ```
 */
export function generateCallId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `call_${Array.from(bytes, (b) => ALPHANUMERIC[b % 62]).join("")}`;
}

/**
 * Maps canonical tool-call ids to stable 9-character [A-Za-z0-9] wire ids. The same id always
 * maps to the same wire id (a hash, so a resumed session maps alike); a collision is resolved by
 * rehashing. An id that is already 9 alphanumerics is sent as it is.
 *
 * @example
 * ```ts
 * import { ShortIdMap } from "./call_ids.ts";
 * const ids = new ShortIdMap();
 * const wire = ids.wireId("call_abc-123");
 * if (!/^[A-Za-z0-9]{9}$/.test(wire) || ids.wireId("call_abc-123") !== wire) {
 *   throw new Error(wire);
 * }
 * if (ids.wireId("abcDEF123") !== "abcDEF123") throw new Error("short id changed");
 * ```
 */
export class ShortIdMap {
  #toWire = new Map<string, string>();
  #owner = new Map<string, string>();

  /**
   * Returns the wire id of a canonical id, assigning one on first use.
   *
   * @param id Canonical tool-call id.
   * @returns A 9-character [A-Za-z0-9] id no other canonical id maps to.
   */
  wireId(id: string): string {
    const known = this.#toWire.get(id);
    if (known !== undefined) return known;
    let candidate = /^[A-Za-z0-9]{9}$/.test(id) ? id : shortHash(id);
    for (let salt = 1; this.#owner.has(candidate); salt++) {
      candidate = shortHash(`${id}#${salt}`);
    }
    this.#toWire.set(id, candidate);
    this.#owner.set(candidate, id);
    return candidate;
  }
}

/** 53-bit string hash (cyrb53) written as 9 base-62 digits. */
function shortHash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  let value = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  let out = "";
  for (let i = 0; i < 9; i++) {
    out = ALPHANUMERIC[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}
