// Helpers for the text tool-call tests: the offered tools, a stream driver, and the ways of
// cutting a text into deltas (every two-way split, one character at a time, random chunks).

import type { ToolSchema } from "../../src/messages.ts";
import {
  type TextToolCallOptions,
  TextToolCallStream,
} from "../../src/providers/text_tool_calls.ts";

export const TOOLS: ToolSchema[] = [
  {
    name: "get_weather",
    description: "",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
    },
  },
  {
    name: "read_file",
    description: "",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
  {
    name: "write_file",
    description: "",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
    },
  },
  {
    name: "set_flag",
    description: "",
    parameters: {
      type: "object",
      properties: {
        enabled: { type: "boolean" },
        count: { type: "number" },
        tags: { type: "array", items: { type: "string" } },
        options: { type: "object" },
        label: { type: "string" },
      },
    },
  },
];

/** What a stream showed: text, reasoning, and the names of the calls announced. */
export interface Streamed {
  text: string;
  reasoning: string;
  calls: string[];
}

/** Feeds `chunks` to a fresh stream and collects what it shows. */
export function streamed(chunks: string[], options: TextToolCallOptions = {}): Streamed {
  const stream = new TextToolCallStream(TOOLS, options);
  const out: Streamed = { text: "", reasoning: "", calls: [] };
  const take = (pieces: ReturnType<TextToolCallStream["push"]>) => {
    for (const piece of pieces) {
      if (piece.type === "call") out.calls.push(piece.name);
      else out[piece.type] += piece.text;
    }
  };
  for (const chunk of chunks) take(stream.push(chunk));
  take(stream.end());
  return out;
}

/** A small seeded generator, so a failing chunking can be replayed. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Every way of cutting the text in two, one character at a time, and `random` chunkings into
 * pieces of 1 to 12 characters.
 */
export function splits(text: string, random = 20): string[][] {
  const all: string[][] = [];
  for (let i = 0; i <= text.length; i++) all.push([text.slice(0, i), text.slice(i)]);
  all.push([...text]);
  const next = mulberry32(text.length);
  for (let n = 0; n < random; n++) {
    const chunks: string[] = [];
    for (let i = 0; i < text.length;) {
      const size = 1 + Math.floor(next() * 12);
      chunks.push(text.slice(i, i + size));
      i += size;
    }
    all.push(chunks);
  }
  return all;
}
