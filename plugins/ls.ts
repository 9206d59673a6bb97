// Built-in tool ls: lists one workspace directory (not recursive) as a table of type, size,
// modification time and name, followed by totals (files, dirs and links counted apart; bytes
// are those of files). Symlinks are shown, never followed.

import { join } from "../src/platform/paths.ts";
import { z } from "zod";
import { defineTool, ToolError } from "../src/tools/define_tool.ts";
import { formatBytes, toFileToolError } from "../src/tools/builtin/text_file.ts";
import { readDirVerified } from "../src/tools/verified_fs.ts";

interface Row {
  type: "FILE" | "DIR" | "LINK";
  name: string;
  size: number;
  mtime: Date | null;
  target: string;
}

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}

function formatTime(date: Date | null): string {
  if (date === null) return "-";
  return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${
    pad2(date.getHours())
  }:${pad2(date.getMinutes())}`;
}

function readRow(dir: string, name: string): Row {
  const abs = join(dir, name);
  try {
    const info = Deno.lstatSync(abs);
    if (info.isSymlink) {
      let target = "";
      try {
        target = Deno.readLinkSync(abs);
      } catch { /* an unreadable link still gets listed */ }
      return { type: "LINK", name, size: info.size, mtime: info.mtime, target };
    }
    return {
      type: info.isDirectory ? "DIR" : "FILE",
      name,
      size: info.isDirectory ? 0 : info.size,
      mtime: info.mtime,
      target: "",
    };
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) throw error;
    return { type: "FILE", name, size: 0, mtime: null, target: "" };
  }
}

export default defineTool({
  name: "ls",
  description:
    "List one directory of the workspace (not recursive): type, size, modified time and name, then totals.",
  risk: "safe",
  permissions: { read: ["."] },
  parameters: z.object({
    path: z.string().default(".").describe("Workspace-relative directory to list."),
    show_hidden: z.boolean().default(false).describe(
      "Include entries whose name starts with a dot.",
    ),
    sort_by: z.enum(["name", "size", "modified"]).default("name").describe(
      "Sort by name (A-Z), size (largest first) or modified (newest first).",
    ),
    reverse: z.boolean().default(false).describe("Reverse the sort order."),
    max_entries: z.number().int().min(1).max(1000).default(500).describe(
      "Maximum entries to show (at most 1000).",
    ),
  }),
  run({ path, show_hidden, sort_by, reverse, max_entries }, ctx) {
    const abs = ctx.resolve(path);
    const rows: Row[] = [];
    try {
      const info = Deno.statSync(abs);
      if (!info.isDirectory) {
        throw new ToolError(
          "validation_failed",
          `"${path}" is a file, not a directory: use read_file to read it`,
        );
      }
      for (const entry of readDirVerified(abs, path)) {
        if (!show_hidden && entry.name.startsWith(".")) continue;
        rows.push(readRow(abs, entry.name));
      }
    } catch (error) {
      const mapped = toFileToolError(error, path);
      if (mapped instanceof ToolError && mapped.type === "not_found") {
        throw new ToolError(
          "not_found",
          `Directory "${path}" does not exist: list its parent with ls`,
        );
      }
      throw mapped;
    }
    const byName = (a: Row, b: Row) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const compare = sort_by === "size"
      ? (a: Row, b: Row) => b.size - a.size || byName(a, b)
      : sort_by === "modified"
      ? (a: Row, b: Row) => (b.mtime?.getTime() ?? 0) - (a.mtime?.getTime() ?? 0) || byName(a, b)
      : byName;
    rows.sort(compare);
    if (reverse) rows.reverse();

    const count = (type: Row["type"]) => rows.filter((r) => r.type === type).length;
    const totals = `${count("FILE")} files, ${count("DIR")} dirs, ${count("LINK")} links`;
    const bytes = rows.reduce((sum, r) => sum + (r.type === "FILE" ? r.size : 0), 0);
    const shown = rows.slice(0, max_entries);
    const cells = shown.map((r) => [
      r.type,
      r.type === "DIR" ? "-" : formatBytes(r.size),
      formatTime(r.mtime),
      r.type === "DIR" ? `${r.name}/` : r.type === "LINK" ? `${r.name} -> ${r.target}` : r.name,
    ]);
    const sizeWidth = Math.max(4, ...cells.map((c) => (c[1] ?? "").length));
    const lines = [`TYPE  ${"SIZE".padEnd(sizeWidth)}  MODIFIED          NAME`];
    for (const [type = "", size = "", time = "", name = ""] of cells) {
      lines.push(`${type.padEnd(4)}  ${size.padStart(sizeWidth)}  ${time.padEnd(16)}  ${name}`);
    }
    if (rows.length === 0) lines.push("(empty directory)");
    if (rows.length > shown.length) {
      lines.push(
        `[${
          rows.length - shown.length
        } more entries not shown: raise max_entries (at most 1000) or list a subfolder]`,
      );
    }
    const hiddenNote = show_hidden ? "" : " (hidden entries skipped)";
    lines.push(`${totals}, ${formatBytes(bytes)} (${bytes} bytes)${hiddenNote}`);
    return { output: lines.join("\n"), display: `Listed ${path} (${totals})` };
  },
});
