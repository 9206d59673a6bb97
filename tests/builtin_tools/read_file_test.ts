import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/read_file.ts";
import {
  assertPathRules,
  expectToolError,
  makeToolContext,
  runTool,
} from "../helpers/tool_context.ts";

Deno.test("read_file numbers every line from 1", async () => {
  await using ctx = await makeToolContext({ "a.txt": "alpha\r\nbeta\r\n" });
  const { output } = await runTool(tool, { path: "a.txt" }, ctx);
  assertEquals(output, "1: alpha\n2: beta");
});

Deno.test("read_file says how to read the remaining lines", async () => {
  const text = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
  await using ctx = await makeToolContext({ "long.txt": text });
  const { output } = await runTool(tool, { path: "long.txt", offset: 5, limit: 10 }, ctx);
  const lines = output.split("\n");
  assertEquals(lines[0], " 5: line 5");
  assertEquals(lines[9], "14: line 14");
  assert(output.includes("lines 5-14 of 30"), output);
  assert(output.includes("offset 15"), output);
});

Deno.test("read_file defaults to 2000 lines", async () => {
  const text = Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join("\n");
  await using ctx = await makeToolContext({ "big.txt": text });
  const { output } = await runTool(tool, { path: "big.txt" }, ctx);
  assert(output.includes("2000: 2000\n"), "line 2000 shown");
  assert(!output.includes("2001: 2001"), "line 2001 not shown");
  assert(output.includes("offset 2001"), output);
});

Deno.test("read_file rejects an offset past the end with the valid range", async () => {
  await using ctx = await makeToolContext({ "a.txt": "one\ntwo\n" });
  const message = await expectToolError(
    tool,
    { path: "a.txt", offset: 9 },
    ctx,
    "validation_failed",
  );
  assert(message.includes("1 to 2"), message);
});

Deno.test("read_file reports an empty file", async () => {
  await using ctx = await makeToolContext({ "empty.txt": "" });
  const { output } = await runTool(tool, { path: "empty.txt" }, ctx);
  assert(output.includes("empty"), output);
});

Deno.test("read_file refuses binary files", async () => {
  await using ctx = await makeToolContext();
  await Deno.writeFile(`${ctx.workspace}/bin.dat`, new Uint8Array([0x50, 0x4b, 0, 3, 4]));
  const message = await expectToolError(tool, { path: "bin.dat" }, ctx, "validation_failed");
  assert(message.includes("binary"), message);
});

Deno.test("read_file refuses files over 10 MB", async () => {
  await using ctx = await makeToolContext();
  using file = await Deno.open(`${ctx.workspace}/huge.log`, { create: true, write: true });
  await file.truncate(10 * 1024 * 1024 + 1);
  const message = await expectToolError(tool, { path: "huge.log" }, ctx, "validation_failed");
  assert(message.includes("10 MB"), message);
});

Deno.test("read_file reports missing files and directories", async () => {
  await using ctx = await makeToolContext({ "dir/x.txt": "x" });
  await expectToolError(tool, { path: "nope.txt" }, ctx, "not_found");
  const message = await expectToolError(tool, { path: "dir" }, ctx, "validation_failed");
  assert(message.includes("directory"), message);
});

Deno.test("read_file cuts very long lines", async () => {
  await using ctx = await makeToolContext({ "min.js": "x".repeat(5000) });
  const { output } = await runTool(tool, { path: "min.js" }, ctx);
  assert(output.includes("3000 more characters"), output.slice(-100));
});

Deno.test("read_file rejects absolute paths, .. escapes and symlinks out", async () => {
  await using ctx = await makeToolContext();
  await assertPathRules(tool, ctx, (path) => ({ path }));
});

Deno.test("read_file returns whole lines up to the output limit and the exact offset to continue", async () => {
  const line = (n: number) => `export const value${n} = compute(${n}, "some padding text");`;
  const text = Array.from({ length: 1500 }, (_, i) => line(i + 1)).join("\n");
  await using ctx = await makeToolContext({ "src.ts": text });
  for (const outputLimit of [30_000, 5_000]) {
    const seen: string[] = [];
    let offset = 1;
    for (let call = 0; call < 100; call++) {
      const { output } = await runTool(tool, { path: "src.ts", offset }, { ...ctx, outputLimit });
      assert(output.length <= outputLimit, `${output.length} > ${outputLimit}`);
      const body = output.split("\n").filter((l) => !l.startsWith("["));
      for (const numbered of body) {
        const match = /^ *(\d+): (.*)$/.exec(numbered);
        assert(match, `not a whole numbered line: ${numbered}`);
        assertEquals(match[2], line(Number(match[1])));
        seen.push(match[1]!);
      }
      const next = /call read_file with offset (\d+)/.exec(output);
      if (!next) break;
      assertEquals(Number(next[1]), Number(seen.at(-1)) + 1);
      offset = Number(next[1]);
    }
    // Every line exactly once, in order, nothing cut from the middle.
    assertEquals(seen.map(Number), Array.from({ length: 1500 }, (_, i) => i + 1));
  }
});
