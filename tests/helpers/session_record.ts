// What a scripted run of the real CLI leaves behind, in a form two versions of harness can be
// compared by: every session log event (from the SQLite file, in order), every request the
// model server received, and what the CLI printed, with what changes between runs (times,
// ids, temp paths, ports, hashes, today's date) replaced by fixed marks. The differential test
// (tests/e2e/tool_path_differential_test.ts) compares records with fixtures made by an earlier
// version; `HARNESS_RECORD_FIXTURES=DIR` writes them into DIR instead.

import { deepStrictEqual } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import type { RecordedRequest } from "./fake_llm_server.ts";

/** Where the fixtures are kept. */
const FIXTURES = fileURLToPath(new URL("../fixtures/tool_path/", import.meta.url));

/** Values that differ between two runs of the same script, and what stands for them. */
export interface RunPlaces {
  cwd: string;
  home: string;
  /** Model and other local servers' URLs (their ports change). */
  servers: string[];
}

/** Paths of this machine that runs may name (the Deno program an MCP server runs with). */
const MACHINE: [string, string][] = [[Deno.execPath(), "<deno>"]];

/** Keys whose values are times. */
const TIME_KEYS = new Set([
  "execution_time_ms",
  "timestamp",
  "elapsedMs",
  "at",
  "durationMs",
  "started",
]);

/**
 * Replaces what changes between runs by fixed marks, in every string of a value.
 *
 * @param value A JSON value.
 * @param places The run's folders and servers.
 * @param ids Random ids seen so far, each with its stable name.
 * @returns The value with fixed marks.
 */
export function normalise(value: unknown, places: RunPlaces, ids = new Map<string, string>()) {
  const text = (s: string): string => {
    let out = s;
    for (const [index, server] of places.servers.entries()) {
      out = out.replaceAll(server, `<server${index + 1}>`);
    }
    for (const [path, mark] of MACHINE) out = out.replaceAll(path, mark);
    out = out.replaceAll(places.cwd, "<cwd>").replaceAll(places.home, "<home>");
    out = out.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z?\b/g, "<time>");
    out = out.replace(/\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b/g, "<minute>");
    out = out.replace(/\bToday is \d{4}-\d{2}-\d{2}/g, "Today is <date>");
    out = out.replace(/\b[0-9a-f]{40}\b/g, "<hash>");
    out = out.replace(/"(execution_time_ms|timestamp|elapsedMs|started)":\s?[\d.]+/g, '"$1":"<t>"');
    out = out.replace(/\b\d+(\.\d+)? ?ms\b|\b\d+\.\d+ ?s\b/g, "<t>");
    // Random ids: call ids harness made up, session and request ids.
    return out.replace(
      /\b(call_[A-Za-z0-9]{20,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/g,
      (id) => {
        if (!ids.has(id)) ids.set(id, `<id${ids.size + 1}>`);
        return ids.get(id)!;
      },
    );
  };
  const walk = (v: unknown, key?: string): unknown => {
    if (key !== undefined && TIME_KEYS.has(key) && v !== null && v !== undefined) return "<t>";
    if (typeof v === "string") return text(v);
    if (Array.isArray(v)) return v.map((item) => walk(item));
    if (typeof v !== "object" || v === null) return v;
    return Object.fromEntries(Object.entries(v).map(([k, inner]) => [text(k), walk(inner, k)]));
  };
  return walk(value);
}

/**
 * Every session log event of the sandbox's database, in order, sessions named by first use.
 *
 * @param home The sandbox's HOME (its XDG_DATA_HOME is home/.local/share).
 * @returns `{ session, type, payload }` per event.
 */
export function sessionEvents(home: string): { session: string; type: string; payload: unknown }[] {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(`${home}/.local/share/harness/harness.db`, { readOnly: true });
  } catch {
    return [];
  }
  try {
    const rows = db.prepare("SELECT session_id, type, payload FROM events ORDER BY seq").all();
    const sessions = new Map<string, string>();
    return rows.map((row) => {
      const id = String(row.session_id);
      if (!sessions.has(id)) sessions.set(id, `s${sessions.size + 1}`);
      return {
        session: sessions.get(id)!,
        type: String(row.type),
        payload: JSON.parse(String(row.payload)),
      };
    });
  } finally {
    db.close();
  }
}

/**
 * The requests a model server received: the messages each added to the one before (all of
 * them when it does not start with the one before), and the offered tools by name with a
 * digest of their whole schemas (a changed description or parameter changes it).
 */
export async function modelRequests(requests: readonly RecordedRequest[]): Promise<unknown[]> {
  const out: unknown[] = [];
  let previous: string[] = [];
  for (const request of requests) {
    const tools = (request.tools ?? []) as { function?: { name?: string } }[];
    const bytes = new TextEncoder().encode(JSON.stringify(request.tools ?? []));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const messages = request.messages.map((message) => JSON.stringify(message));
    const kept = previous.every((message, index) => messages[index] === message)
      ? previous.length
      : 0;
    out.push({
      after: kept,
      messages: request.messages.slice(kept),
      tools: tools.map((tool) => tool.function?.name ?? "?"),
      schemas: [...digest.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join(""),
    });
    previous = messages;
  }
  return out;
}

/**
 * Compares a run's record with its fixture, or writes the fixture when
 * `HARNESS_RECORD_FIXTURES` names a folder.
 *
 * @param name The scenario (the fixture's file name).
 * @param record The run's record, normalised.
 */
export async function checkRecord(name: string, record: unknown): Promise<void> {
  const json = `${JSON.stringify(record, null, 2)}\n`;
  const into = Deno.env.get("HARNESS_RECORD_FIXTURES");
  if (into) {
    await Deno.mkdir(into, { recursive: true });
    await Deno.writeTextFile(`${into}/${name}.json`, json);
    return;
  }
  const expected = JSON.parse(await Deno.readTextFile(`${FIXTURES}${name}.json`));
  deepStrictEqual(JSON.parse(json), expected, `scenario "${name}" differs from its fixture`);
}
