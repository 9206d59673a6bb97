import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { sha256Hex } from "../../src/platform/sha256_hex.ts";

async function webCrypto(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("sha256Hex() equals WebCrypto across block boundaries and non-ASCII text", async () => {
  const texts = ["", "abc", "/home/ünïcode/プロジェクト", "x".repeat(10_000)];
  for (let length = 50; length <= 130; length++) texts.push("a".repeat(length));
  for (const text of texts) assertEquals(sha256Hex(text), await webCrypto(text), text.slice(0, 20));
});
