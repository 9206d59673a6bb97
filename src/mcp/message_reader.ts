// The stdio transport's read side: splits a server's stdout into JSON-RPC messages. It stands
// in for the SDK's ReadBuffer, which joins every chunk into one buffer and searches all of it
// again for each (a 9 MB answer took seconds and hundreds of MB), and fails the connection on a
// message over 10 MiB. Here a message's chunks are joined once, at its newline; a message over
// the limit streams to a saved file (oversize_message.ts) and the call it answers gets its start
// and where the rest is.

import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { humanSize } from "../platform/human_size.ts";
import { type OversizeMessage, OversizeSpill } from "./oversize_message.ts";
import { concatBytes } from "../platform/concat_bytes.ts";

/** The SDK's limit on one message held in memory (STDIO_DEFAULT_MAX_BUFFER_SIZE). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * The `_meta` key of an answer harness saved to a file: `{ path, bytes, cut }` (the text's
 * bytes, and those left out of the answer). McpTools (mcp_tools.ts) puts it in the result's
 * metadata once it has checked the file is one of the workspace's saved outputs (a server can
 * send the key too).
 */
export const SAVED_ANSWER_META = "harness/saved_answer";

const NEWLINE = 10;

/** The methods the SDK's stdio transport calls on its read buffer. */
export interface ReadBufferLike {
  append(chunk: Uint8Array): void;
  readMessage(): JSONRPCMessage | null;
  clear(): void;
}

/** Joins pieces into one array (a single piece is kept as it is). */
function concat(pieces: Uint8Array[], size: number): Uint8Array {
  return pieces.length === 1 ? pieces[0]! : concatBytes(pieces, size);
}

/**
 * The answer a call gets for a message that was streamed to a file: its text's start, then
 * where the whole text is; for anything but an answer, an error (the SDK reports it and the
 * connection goes on).
 */
function oversizeAnswer(message: OversizeMessage, limit: number): JSONRPCMessage {
  const note = `[... the server's answer was ${humanSize(message.bytes)}, more than the ` +
    `${humanSize(limit)} one MCP message may hold here: its text (${
      humanSize(message.textBytes)
    }) is saved to "${message.file}"; read it from there in parts ...]`;
  if (message.id === undefined || message.kinds.has("method")) {
    throw new Error(
      `Dropped a ${humanSize(message.bytes)} message from the server that answers no call`,
    );
  }
  const text = message.head === "" ? note : `${message.head}\n${note}`;
  if (message.kinds.has("error")) {
    return { jsonrpc: "2.0", id: message.id, error: { code: -32603, message: text } };
  }
  const saved = {
    path: message.file,
    bytes: message.textBytes,
    cut: message.textBytes - new TextEncoder().encode(message.head).length,
  };
  return {
    jsonrpc: "2.0",
    id: message.id,
    result: { content: [{ type: "text", text }], _meta: { [SAVED_ANSWER_META]: saved } },
  };
}

/** Splits stdout into messages; see the module comment. */
export class MessageReader implements ReadBufferLike {
  readonly #limit: number;
  readonly #spillFile: () => string;
  #pieces: Uint8Array[] = [];
  #size = 0;
  #spill: OversizeSpill | undefined;
  readonly #done: (Uint8Array | OversizeMessage)[] = [];

  /**
   * @param options `spillFile` names a new file for a message over `limit` bytes (default
   *   {@linkcode MAX_MESSAGE_BYTES}).
   */
  constructor(options: { spillFile: () => string; limit?: number }) {
    this.#limit = options.limit ?? MAX_MESSAGE_BYTES;
    this.#spillFile = options.spillFile;
  }

  append(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (end > start) this.#take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.#endMessage();
      start = newline + 1;
    }
  }

  #take(piece: Uint8Array): void {
    if (this.#spill) {
      this.#spill.write(piece);
      return;
    }
    this.#pieces.push(piece);
    this.#size += piece.length;
    if (this.#size <= this.#limit) return;
    this.#spill = new OversizeSpill(this.#spillFile());
    for (const held of this.#pieces) this.#spill.write(held);
    this.#pieces = [];
    this.#size = 0;
  }

  #endMessage(): void {
    if (this.#spill) {
      this.#done.push(this.#spill.finish());
      this.#spill = undefined;
      return;
    }
    if (this.#size > 0) this.#done.push(concat(this.#pieces, this.#size));
    this.#pieces = [];
    this.#size = 0;
  }

  readMessage(): JSONRPCMessage | null {
    const next = this.#done.shift();
    if (next === undefined) return null;
    if (!(next instanceof Uint8Array)) return oversizeAnswer(next, this.#limit);
    const line = new TextDecoder().decode(next).replace(/\r$/, "");
    return line.trim() === "" ? this.readMessage() : deserializeMessage(line);
  }

  clear(): void {
    this.#spill?.finish();
    this.#spill = undefined;
    this.#pieces = [];
    this.#size = 0;
    this.#done.length = 0;
  }
}
