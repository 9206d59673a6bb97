import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { makeToolResult } from "../../../src/messages.ts";
import {
  truncateBytes,
  truncateMiddle,
  truncateToolResult,
} from "../../../src/sandbox/workers/truncate_output.ts";

Deno.test("truncateBytes() cuts at a character boundary and says how much was cut", () => {
  assertEquals(truncateBytes("short", 100), { text: "short", cut: 0 });
  const r = truncateBytes("ééé", 3); // 6 bytes; 3 would split the second é
  assertEquals(r, { text: "é\n[... 4 bytes truncated ...]", cut: 4 });
});

Deno.test("truncateMiddle() keeps head and tail within the limit", () => {
  const text = Array.from({ length: 2000 }, (_, i) => String(i % 10)).join("");
  const r = truncateMiddle(text, { limit: 300, fullOutputPath: "/d/out.txt" });
  assert(r.text.length <= 300, String(r.text.length));
  assert(r.text.startsWith(text.slice(0, 50)) && r.text.endsWith(text.slice(-50)));
  assert(r.text.includes(`[... ${r.cut} characters cut; full output saved to "/d/out.txt"`));
  assertEquals(truncateMiddle("ok", { limit: 10 }), { text: "ok", cut: 0, cutBytes: 0 });
  const emoji = truncateMiddle("😀".repeat(500), { limit: 101 });
  assert(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(emoji.text), "no lone high surrogate");
  // Two UTF-16 units and four UTF-8 bytes each.
  assertEquals(emoji.cutBytes, emoji.cut * 2);
});

Deno.test("truncateToolResult() applies the byte cap and records it", async () => {
  const result = makeToolResult({ data: "x".repeat(5000) });
  const r = await truncateToolResult(result, { maxOutputSize: 1000, toolOutputLimit: 100_000 });
  assertEquals(r.metadata.truncated, { cut: 4000, unit: "bytes" });
  assert(r.data?.endsWith("[... 4000 bytes truncated ...]"));
  assertEquals(r.metadata.data_size_bytes, new TextEncoder().encode(r.data!).length);
  assertEquals(r.metadata.timestamp, result.metadata.timestamp);
});

Deno.test("truncateToolResult() saves the full output when the context cap applies", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const data = "line\n".repeat(10_000);
    const r = await truncateToolResult(makeToolResult({ data }), {
      toolOutputLimit: 30_000,
      dataDir,
      tool: "grep",
    });
    const path = r.metadata.truncated?.full_output_path;
    assert(path?.startsWith(`${dataDir}/tool_outputs/grep-`), path);
    assertEquals(await Deno.readTextFile(path!), data);
    assert(r.data!.length <= 30_000);
    assertEquals(r.metadata.truncated?.unit, "chars");
    const small = makeToolResult({ data: "tiny" });
    assertEquals(await truncateToolResult(small, { dataDir }), small);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("truncateToolResult() saves the whole output though the byte cap cut what the model sees", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const data = "line\n".repeat(100_000); // 500,000 bytes
    const r = await truncateToolResult(makeToolResult({ data }), {
      maxOutputSize: 100_000,
      toolOutputLimit: 5_000,
      dataDir,
      tool: "run_command",
    });
    const truncated = r.metadata.truncated!;
    assertEquals(await Deno.readTextFile(truncated.full_output_path!), data);
    assertEquals([truncated.saved_bytes, truncated.output_bytes], [500_000, 500_000]);
    assert(r.data!.includes('the whole output (488.3 KB) saved to "'), r.data!);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("truncateToolResult() says what the file holds when the tool cut its own output", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const data = "x".repeat(50_000);
    const r = await truncateToolResult(makeToolResult({ data }), {
      toolOutputLimit: 5_000,
      dataDir,
      tool: "run_command",
      outputBytes: 3 * 1024 * 1024,
    });
    assertEquals(r.metadata.truncated?.output_bytes, 3 * 1024 * 1024);
    assert(!r.data!.includes("whole output"), r.data!);
    assert(r.data!.includes("48.8 KB of the 3.0 MB output (its start and end;"), r.data!);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("truncateToolResult() cuts a tool's own cut output again, naming the tool's file", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const data = "é".repeat(6000); // 12,000 bytes, as a job log's head and tail with notes
    const saved = { path: `${dataDir}/tool_outputs/run_command-a-1.log`, bytes: 300_000 };
    const r = await truncateToolResult(makeToolResult({ data }), {
      toolOutputLimit: 5_000,
      dataDir,
      tool: "run_command",
      outputBytes: 400_000,
      toolCut: { bytes: 388_000, saved },
    });
    assert(r.data!.length <= 5_000, String(r.data!.length));
    assert(
      r.data!.includes(`the first 293.0 KB of the 390.6 KB output saved to "${saved.path}"`),
      r.data!,
    );
    const truncated = r.metadata.truncated!;
    // Both cuts, in bytes: the tool's and the two-byte characters cut here.
    const cutHere = 6000 - (r.data!.match(/é/g) ?? []).length;
    assertEquals(truncated, {
      cut: 388_000 + 2 * cutHere,
      unit: "bytes",
      full_output_path: saved.path,
      saved_bytes: 300_000,
      output_bytes: 400_000,
    });
    // No second file was saved.
    assertEquals(await Array.fromAsync(Deno.readDir(dataDir)), []);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
