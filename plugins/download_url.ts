// Built-in tool download_url: fetches an http(s) URL and returns the body as text, reading
// at most max_bytes, after notes on status, type, size and cuts, fenced as untrusted text.
// HTML is reduced to readable text; binary content is refused. Redirects are followed one request at a time, so the
// sandbox checks every hop against the grants (deny_guard.ts compares addresses, not host
// spellings) and the notes list where the download ended. Needs --allow-net.

import { z } from "zod";
import { defineTool, ToolError } from "../src/tools/define_tool.ts";
import { htmlToText } from "../src/tools/builtin/html_text.ts";
import { fenceUntrusted } from "../src/tools/builtin/untrusted_text.ts";
import { formatBytes, looksBinary } from "../src/tools/builtin/text_file.ts";

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ecmascript|x-yaml|yaml|toml|ld\+json|rss\+xml|atom\+xml|x-sh|x-www-form-urlencoded)|[^;]*\+(json|xml))/i;

/** Redirects followed before giving up. */
const MAX_REDIRECTS = 10;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Fetches `url`, following redirects by hand: each hop is its own request, checked anew. */
async function fetchFollowing(
  url: URL,
  signal: AbortSignal,
): Promise<{ response: Response; hops: URL[] }> {
  const hops: URL[] = [];
  let current = url;
  for (;;) {
    const response = await fetch(current, {
      signal,
      redirect: "manual",
      headers: {
        "accept": "text/html,text/plain,application/json,*/*;q=0.8",
        "user-agent": "harness/0.1",
      },
    });
    const location = response.headers.get("location");
    if (!REDIRECT_STATUSES.has(response.status) || location === null) {
      return { response, hops };
    }
    await response.body?.cancel();
    const next = new URL(location, current);
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new ToolError(
        "validation_failed",
        `"${current.href}" redirects to "${next.href}": only http:// and https:// are followed`,
      );
    }
    if (hops.length === MAX_REDIRECTS) {
      throw new ToolError(
        "io_error",
        `"${url.href}" redirected more than ${MAX_REDIRECTS} times (last to "${next.href}"): ` +
          `give the final URL instead`,
      );
    }
    hops.push(next);
    current = next;
  }
}

async function readLimited(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  let truncated = false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (length + value.length > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - length));
        length = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(value);
      length += value.length;
    }
  } finally {
    if (truncated) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes, truncated };
}

/** Media types named as they are in the notes; another is "another text type". */
const KNOWN_TYPES = new Set([
  "text/plain",
  "text/html",
  "text/markdown",
  "text/csv",
  "text/css",
  "text/xml",
  "text/javascript",
  "application/json",
  "application/ld+json",
  "application/xml",
  "application/xhtml+xml",
  "application/javascript",
  "application/rss+xml",
  "application/atom+xml",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
]);

/**
 * A Content-Type as the notes name it: a known media type and the charset as the decoder names
 * it, never the server's own words (a subtype or parameter can say anything).
 */
function mediaType(contentType: string): string {
  if (contentType === "") return "no content type";
  const type = /^\s*([\w.+-]+\/[\w.+-]+)/.exec(contentType)?.[1]?.toLowerCase() ?? "";
  const named = KNOWN_TYPES.has(type) ? type : "another text type";
  const charset = /charset\s*=/i.test(contentType) ? decoderFor(contentType).encoding : undefined;
  return charset ? `${named}; charset=${charset}` : named;
}

function decoderFor(contentType: string): TextDecoder {
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8");
  } catch {
    return new TextDecoder();
  }
}

export default defineTool({
  name: "download_url",
  description:
    "Download an http(s) URL and return its content as text; HTML pages are reduced to readable text.",
  risk: "medium",
  permissions: { net: true },
  parameters: z.object({
    url: z.string().describe("The http:// or https:// URL to fetch."),
    max_bytes: z.number().int().min(1).max(10 * 1024 * 1024).default(1024 * 1024).describe(
      "Maximum bytes of the body to read (default 1 MiB).",
    ),
  }),
  async run({ url, max_bytes }, ctx) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ToolError(
        "validation_failed",
        `"${url}" is not a valid URL: give a full http:// or https:// URL`,
      );
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new ToolError(
        "validation_failed",
        `Only http:// and https:// URLs can be downloaded, not "${parsed.protocol}"`,
      );
    }
    let response: Response;
    let hops: URL[];
    try {
      ({ response, hops } = await fetchFollowing(parsed, ctx.signal));
    } catch (error) {
      if (
        error instanceof Deno.errors.NotCapable || error instanceof ToolError || ctx.signal.aborted
      ) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new ToolError("io_error", `Cannot fetch "${url}": ${message}`);
    }
    const contentType = response.headers.get("content-type") ?? "";
    const { bytes, truncated } = response.body === null
      ? { bytes: new Uint8Array(), truncated: false }
      : await readLimited(response.body, max_bytes);
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    if (contentType !== "" && !TEXT_TYPES.test(contentType) || looksBinary(bytes)) {
      throw new ToolError(
        "validation_failed",
        `"${url}" returned binary content (${
          contentType || "unknown type"
        }), which cannot be shown as text`,
      );
    }
    let text = decoderFor(contentType).decode(bytes);
    const isHtml = /html/i.test(contentType) ||
      (contentType === "" && /^\s*<(!doctype html|html)/i.test(text));
    if (isHtml) text = htmlToText(text);
    if (!response.ok) {
      const type = response.status === 404 || response.status === 410 ? "not_found" : "io_error";
      throw new ToolError(
        type,
        `${status} for "${url}"${text ? `:\n${fenceUntrusted(text.slice(0, 2000), url)}` : ""}`,
      );
    }
    // Outside the fence only what harness says: the server's header parameters and the
    // addresses it redirected to are its text, so they go inside, with the page.
    const notes = [
      `[${status}, ${mediaType(contentType)}, ${formatBytes(bytes.length)}${
        isHtml ? ", HTML reduced to text" : ""
      }]`,
    ];
    if (hops.length > 0) {
      notes.push(
        `[redirected ${hops.length} time${hops.length === 1 ? "" : "s"}: the addresses are the ` +
          "first line of the fenced text]",
      );
      text = `[redirected to ${hops.map((hop) => hop.href).join(" -> ")}]\n${text}`;
    }
    if (truncated) {
      notes.push(`[body cut at max_bytes = ${max_bytes}; raise max_bytes to read more]`);
    }
    // Notes go first: the host's byte cap (max_output_size, 1 MiB by default, as max_bytes)
    // cuts the end of a long body, and the notes must survive it. The page is fenced as
    // untrusted text: it is data, never instructions. The fence names the URL asked for.
    return {
      output: `${notes.join("\n")}\n\n${fenceUntrusted(text, parsed.href)}`,
      display: `Downloaded ${url} (${formatBytes(bytes.length)}${truncated ? ", cut" : ""})`,
    };
  },
});
