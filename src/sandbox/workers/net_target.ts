// Network deny checks by address, not by spelling: `--deny-net=127.0.0.1` must also stop
// `localhost`, `[::ffff:127.0.0.1]`, `2130706433`, `0x7f.1` or `localhost.`, and a redirect
// to any of them. deny_guard.ts calls these for every fetch (each redirect hop) and connect
// inside a sandbox worker; names are resolved with the system resolver, as fetch does.

import { isIPv4, isIPv6 } from "../../platform/ip_address.ts";

/** A host and port a connection goes to. */
export interface NetTarget {
  hostname: string;
  port: number;
}

/** Resolves a host name to its addresses (the system resolver by default). */
export type HostLookup = (hostname: string) => Promise<string[]>;

/** Addresses that reach this machine: loopback, and the unspecified address (Linux). */
const LOCAL = "local";

/**
 * The canonical spelling of a host: lower case, no trailing dot, no IPv6 brackets, IPv4 in
 * dotted decimal (the URL parser reads `2130706433`, `0x7f.1` and `127.1`), and an
 * IPv4-mapped IPv6 address as its IPv4 address.
 *
 * @param hostname A host as written in a URL or a flag.
 * @returns The canonical host.
 *
 * @example
 * ```ts
 * import { canonicalHost } from "./net_target.ts";
 * if (canonicalHost("0x7f.1") !== "127.0.0.1") throw new Error();
 * if (canonicalHost("[::ffff:127.0.0.1]") !== "127.0.0.1") throw new Error();
 * if (canonicalHost("LocalHost.") !== "localhost") throw new Error();
 * ```
 */
export function canonicalHost(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  host = host.replace(/\.+$/, "");
  try {
    const parsed = new URL(`http://${isIPv6(host) ? `[${host}]` : host}/`).hostname;
    host = parsed.startsWith("[") ? parsed.slice(1, -1) : parsed;
  } catch { /* not a valid host: compared as written */ }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const high = parseInt(mapped[1]!, 16);
    const low = parseInt(mapped[2]!, 16);
    host = [high >> 8, high & 255, low >> 8, low & 255].join(".");
  }
  return host;
}

/** What an address stands for: "local" for this machine, else the address itself. */
function addressKey(address: string): string {
  const host = canonicalHost(address);
  if (isIPv4(host)) return host.startsWith("127.") || host === "0.0.0.0" ? LOCAL : host;
  if (isIPv6(host)) return host === "::1" || host === "::" ? LOCAL : host;
  if (host === "localhost" || host.endsWith(".localhost")) return LOCAL;
  return host;
}

async function systemLookup(hostname: string): Promise<string[]> {
  const { promises } = await import("node:dns");
  const found = await promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}

/** The address keys of a host: itself when it is an address, else what it resolves to. */
async function keysOf(host: string, lookup: HostLookup): Promise<Set<string>> {
  const keys = new Set([addressKey(host)]);
  const canonical = canonicalHost(host);
  if (isIPv4(canonical) || isIPv6(canonical) || addressKey(canonical) === LOCAL) return keys;
  try {
    for (const address of await lookup(canonical)) keys.add(addressKey(address));
  } catch { /* unresolvable (or resolving is not granted): compared by name only */ }
  return keys;
}

/** Splits a `--deny-net` entry into host and optional port: `a.com`, `a.com:80`, `[::1]:80`. */
function parseEntry(entry: string): { host: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    return bracketed[2] === undefined
      ? { host: bracketed[1]! }
      : { host: bracketed[1]!, port: Number(bracketed[2]) };
  }
  if (isIPv6(entry)) return { host: entry };
  const withPort = /^(.*):(\d+)$/.exec(entry);
  return withPort ? { host: withPort[1]!, port: Number(withPort[2]) } : { host: entry };
}

/**
 * The first deny entry that covers `target`, comparing addresses: the target's host and each
 * entry's host are resolved (names) or canonicalised (addresses), and any shared address, or
 * both being this machine, is a match. A port in the entry must equal the target's.
 *
 * @param target Host and port about to be reached.
 * @param deny `--deny-net` entries (`host` or `host:port`).
 * @param options `lookup` resolves names (default: the system resolver, as fetch uses).
 * @returns The matching entry, or undefined when none covers the target.
 *
 * @example
 * ```ts
 * import { deniedBy } from "./net_target.ts";
 * const lookup = () => Promise.resolve([]);
 * if (await deniedBy({ hostname: "localhost", port: 80 }, ["127.0.0.1"], { lookup }) !== "127.0.0.1") {
 *   throw new Error();
 * }
 * if (await deniedBy({ hostname: "127.0.0.1", port: 80 }, ["127.0.0.1:81"], { lookup })) throw new Error();
 * ```
 */
export async function deniedBy(
  target: NetTarget,
  deny: readonly string[],
  options: { lookup?: HostLookup } = {},
): Promise<string | undefined> {
  if (deny.length === 0) return undefined;
  const lookup = options.lookup ?? systemLookup;
  const targetKeys = await keysOf(target.hostname, lookup);
  for (const entry of deny) {
    const { host, port } = parseEntry(entry);
    if (port !== undefined && port !== target.port) continue;
    const entryKeys = await keysOf(host, lookup);
    if ([...entryKeys].some((key) => targetKeys.has(key))) return entry;
  }
  return undefined;
}

/** The host and port a URL connects to (default ports filled in). */
export function urlTarget(url: URL): NetTarget {
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return { hostname: url.hostname, port };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Most redirects followed, as in the Fetch standard. */
export const MAX_REDIRECTS = 20;

/**
 * fetch with `redirect: "follow"` done by hand, so `check` sees every hop before it is
 * requested (fetch follows redirects itself without asking). Other redirect modes make one
 * request after one check. A request body is buffered so 307 and 308 can send it again.
 *
 * @param fetchOnce The real fetch.
 * @param input, init As for fetch.
 * @param check Throws (or rejects) for a URL that may not be requested.
 * @returns The final response.
 *
 * @example
 * ```ts
 * import { fetchCheckingHops } from "./net_target.ts";
 * const server = Deno.serve({ port: 0, onListen() {} }, (r) =>
 *   new URL(r.url).pathname === "/" ? Response.redirect(new URL("/b", r.url), 302) : new Response("b"));
 * const seen: string[] = [];
 * const res = await fetchCheckingHops(fetch, `http://127.0.0.1:${server.addr.port}/`, {}, (u) => {
 *   seen.push(u.pathname);
 * });
 * if ((await res.text()) !== "b" || seen.join() !== "/,/b") throw new Error(seen.join());
 * await server.shutdown();
 * ```
 */
export async function fetchCheckingHops(
  fetchOnce: typeof fetch,
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  check: (url: URL) => void | Promise<void>,
): Promise<Response> {
  const request = new Request(input, init);
  let url = new URL(request.url);
  await check(url);
  if (request.redirect !== "follow") return await fetchOnce(input, init);
  let method = request.method;
  let body: ArrayBuffer | null = request.body === null ? null : await request.arrayBuffer();
  const headers = new Headers(request.headers);
  for (let hop = 0;; hop++) {
    const response = await fetchOnce(url, {
      ...init, // keeps Deno's own options, such as an HTTP client
      method,
      headers,
      body,
      redirect: "manual",
      signal: request.signal,
    });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null || hop === MAX_REDIRECTS) {
      return response;
    }
    await response.body?.cancel();
    const next = new URL(location, url);
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new TypeError(`Redirect to "${next.href}" is not http(s)`);
    }
    if (
      response.status === 303 && method !== "HEAD" ||
      (response.status === 301 || response.status === 302) && method === "POST"
    ) {
      method = "GET";
      body = null;
      headers.delete("content-type");
      headers.delete("content-length");
    }
    if (next.origin !== url.origin) {
      headers.delete("authorization");
      headers.delete("cookie");
    }
    await check(next);
    url = next;
  }
}
