// Reduces an HTML page to readable text for download_url: drops scripts, styles and other
// non-content elements, keeps headings (as "#" lines), paragraphs, list items and link text
// (with the link target), and decodes common entities.

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  copy: "©",
  reg: "®",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  middot: "·",
  bull: "•",
};

/**
 * Decodes HTML character references (named, decimal and hex).
 *
 * @param text Text with entities.
 * @returns Decoded text.
 *
 * @example
 * ```ts
 * import { decodeEntities } from "./html_text.ts";
 * if (decodeEntities("a &amp; b &#x41;&#66;") !== "a & b AB") throw new Error();
 * ```
 */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X"
        ? parseInt(ref.slice(2), 16)
        : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/**
 * Converts HTML to readable plain text.
 *
 * @param html The page.
 * @returns Text with headings as `#` lines, paragraphs separated by blank lines and links
 * as `text (url)`.
 *
 * @example
 * ```ts
 * import { htmlToText } from "./html_text.ts";
 * const t = htmlToText("<h1>Hi</h1><script>x()</script><p>See <a href='/d'>docs</a></p>");
 * if (t !== "# Hi\n\nSee docs (/d)") throw new Error(JSON.stringify(t));
 * ```
 */
export function htmlToText(html: string): string {
  let text = html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(
      /<(script|style|noscript|template|svg|canvas|iframe|object|head)\b[\s\S]*?<\/\1\s*>/gi,
      (
        block,
        tag: string,
      ) => {
        // Keep the page title out of the dropped <head>.
        if (tag.toLowerCase() !== "head") return "";
        const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(block)?.[1]?.trim();
        return title ? `\n# ${title}\n\n` : "";
      },
    )
    .replace(
      /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi,
      (_m, level: string, inner: string) =>
        `\n\n${"#".repeat(Number(level))} ${
          inner.replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim()
        }\n\n`,
    )
    .replace(
      /<a\b[^>]*?href\s*=\s*(["'])(.*?)\1[^>]*>([\s\S]*?)<\/a\s*>/gi,
      (_m, _q, href: string, inner: string) => {
        const label = inner.replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim();
        if (label === "") return "";
        if (href.startsWith("#") || href.startsWith("javascript:") || href === label) return label;
        return `${label} (${href})`;
      },
    )
    .replace(/<li\b[^>]*>/gi, "\n- ")
    .replace(/<(br|hr)\b[^>]*>/gi, "\n")
    .replace(
      /<\/(p|div|section|article|header|footer|nav|main|aside|ul|ol|table|tr|blockquote|pre|form|figure|dl|dt|dd)\s*>/gi,
      "\n\n",
    )
    .replace(/<(p|div|section|article|tr|blockquote|pre|table|ul|ol)\b[^>]*>/gi, "\n")
    .replace(/<\/t[dh]\s*>/gi, "\t")
    .replace(/<[^>]*>/g, "");
  text = decodeEntities(text);
  return text
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
