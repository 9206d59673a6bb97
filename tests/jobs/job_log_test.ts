import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { JobLog } from "../../src/jobs/job_log.ts";

const encoder = new TextEncoder();

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "harness_job_log_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test("JobLog keeps small output in memory and writes no file", async () => {
  await using dir = await tempDir();
  const log = new JobLog({ dir: join(dir.path, "logs"), name: "a" });
  await log.append(encoder.encode("one\ntwo\n"));
  assertEquals((await log.read(4, log.total, 100)).text, "two\n");
  assertEquals(log.path, undefined);
  await log.discard();
  assertEquals([...Deno.readDirSync(dir.path)], []);
});

Deno.test("JobLog.read() keeps head and tail on line boundaries and names the lines cut", async () => {
  await using dir = await tempDir();
  const log = new JobLog({ dir: dir.path, name: "b", memoryBytes: 1000 });
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}\n`).join("");
  for (let at = 0; at < lines.length; at += 777) {
    await log.append(encoder.encode(lines.slice(at, at + 777)));
  }
  assertEquals(log.lines, 5000);
  const read = await log.read(0, log.total, 2000);
  const marker =
    /\[\.\.\. lines (\d+)-(\d+) \(.+\) cut here; the whole output .* saved to "(.+)": read_file it with offset (\d+) to see them \.\.\.\]\n/
      .exec(read.text);
  assert(marker, read.text);
  const [, first, last, path, offset] = marker;
  assertEquals(offset, first);
  assert(read.text.startsWith("line 1\n") && read.text.endsWith("line 5000\n"), read.text);
  assert(read.text.includes(`line ${Number(first) - 1}\n[...`), "the head ends on the line before");
  assert(read.text.includes(`]\nline ${Number(last) + 1}\n`), "the tail starts after the cut");
  assertEquals(await Deno.readTextFile(path!), lines);
  log.close();
});

Deno.test("JobLog keeps at most its file cap on disk and the newest bytes in memory", async () => {
  await using dir = await tempDir();
  const log = new JobLog({
    dir: dir.path,
    name: "c",
    memoryBytes: 10,
    fileBytes: 100,
    ringBytes: 50,
  });
  for (let i = 0; i < 40; i++) await log.append(encoder.encode(`${String(i).padStart(9, "0")}\n`));
  assertEquals(log.total, 400);
  assertEquals((await Deno.stat(log.path!)).size, 100);
  const read = await log.read(0, log.total, 1000);
  assert(read.text.startsWith("000000000\n") && read.text.endsWith("000000039\n"), read.text);
  assert(read.text.includes("bytes not kept (past the log's cap)"), read.text);
  assertEquals(read.cutBytes, 250);
  assertEquals(log.recent(10), "000000039\n");
  log.close();
});

Deno.test("JobLog.read() names what its file holds past the cap, and a part it did not keep", async () => {
  await using dir = await tempDir();
  const log = new JobLog({
    dir: dir.path,
    name: "d",
    memoryBytes: 10,
    fileBytes: 1000,
    ringBytes: 500,
  });
  // 400 lines of 10 bytes: line n reads n - 1, zero-padded.
  for (let i = 0; i < 400; i++) await log.append(encoder.encode(`${String(i).padStart(9, "0")}\n`));
  const read = await log.read(0, log.total, 200);
  const marker =
    /\[\.\.\. lines (\d+)-(\d+) \(.+\) cut here; the first 1000 B of the 3\.9 KB output saved to "(.+)": read_file it with offset (\d+) to see what it holds of them \.\.\.\]\n/
      .exec(read.text);
  assert(marker, read.text);
  const [, first, last, path, offset] = marker;
  assertEquals(offset, first);
  assertEquals(path, log.path);
  // The line numbers are exact on both sides, though the tail comes from the ring.
  assert(read.text.includes(`${String(Number(first) - 2).padStart(9, "0")}\n[...`), read.text);
  assert(read.text.includes(`]\n${String(Number(last)).padStart(9, "0")}\n`), read.text);
  assert(read.text.endsWith("000000399\n"), read.text);
  assertEquals((await Deno.stat(path!)).size, 1000);

  // A read wholly past the file's cap has nothing for read_file to show.
  const late = await log.read(2000, log.total, 200);
  assert(
    late.text.includes(
      "keeps only the first 1000 B of the 3.9 KB output, so this part was not kept",
    ),
    late.text,
  );
  assert(!late.text.includes("read_file"), late.text);
  log.close();
});

Deno.test({
  name: "JobLog makes its folder owner-only though it existed, and its file too",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await using dir = await tempDir();
    const logs = join(dir.path, "logs");
    await Deno.mkdir(logs, { mode: 0o755 });
    await Deno.chmod(logs, 0o755);
    const log = new JobLog({ dir: logs, name: "e", memoryBytes: 4 });
    await log.append(encoder.encode("secret output\n"));
    assertEquals((await Deno.stat(logs)).mode! & 0o777, 0o700);
    assertEquals((await Deno.stat(log.path!)).mode! & 0o777, 0o600);
    log.close();
  },
});

Deno.test("JobLog.follow() hands what came before, then each chunk in order, then the end", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const log = new JobLog({ dir, name: "follow", memoryBytes: 4 });
    const encode = (text: string) => new TextEncoder().encode(text);
    await log.append(encode("one\ntwo\n"));
    const seen: string[] = [];
    let ended = false;
    await log.follow({
      chunk: (bytes) => Promise.resolve(void seen.push(new TextDecoder().decode(bytes))),
      end: () => ended = true,
    });
    await log.append(encode("three\n"));
    log.close();
    assertEquals([seen.join(""), ended], ["one\ntwo\nthree\n", true]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
