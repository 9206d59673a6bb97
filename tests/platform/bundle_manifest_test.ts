// The bundle runs only while every file it was built from and every file it wrote are
// unchanged, in the checkout it was built in: an edit, a file gone, another Deno, another
// checkout or a half-written manifest run the source (src/platform/bundle_manifest.ts).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type BundleManifest,
  freshBundle,
  settledStamps,
  stampOf,
  unchangedManifest,
} from "../../src/platform/bundle_manifest.ts";

/** A checkout with two source files and a manifest of them. */
async function checkout(): Promise<{ dir: string; root: URL } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "harness_bundle_manifest_" });
  const root = pathToFileURL(`${dir}/`);
  await Deno.mkdir(join(dir, "src"));
  await Deno.writeTextFile(join(dir, "src", "a.ts"), "export const a = 1;\n");
  await Deno.writeTextFile(join(dir, "deno.json"), "{}\n");
  await Deno.mkdir(join(dir, ".bundle", "k1"), { recursive: true });
  await Deno.writeTextFile(join(dir, ".bundle", "k1", "run.js"), "export {};\n");
  const manifest: BundleManifest = {
    folder: "k1",
    root: root.href,
    deno: Deno.version.deno,
    inputs: ["src/a.ts", "deno.json"].map((path) => stampOf(path, root)!),
    outputs: [stampOf(".bundle/k1/run.js", root)!],
  };
  await Deno.writeTextFile(join(dir, ".bundle", "current.json"), JSON.stringify(manifest));
  return {
    dir,
    root,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("a bundle whose inputs are unchanged runs", async () => {
  await using c = await checkout();
  assertEquals(freshBundle(c.root)?.href, new URL(".bundle/k1/run.js", c.root).href);
});

Deno.test("an edit of the same size to an input runs the source", async () => {
  await using c = await checkout();
  const file = join(c.dir, "src", "a.ts");
  const before = stampOf("src/a.ts", c.root)!;
  await Deno.writeTextFile(file, "export const a = 2;\n");
  // The same size, and a clock that may not have moved: the mtime set back does not hide it.
  await Deno.utime(file, new Date(before[2]), new Date(before[2]));
  const after = stampOf("src/a.ts", c.root)!;
  assert(after[1] === before[1]);
  if (after[3] === before[3]) {
    // ctime has whole seconds here: wait for it to move, as any later edit's would.
    await new Promise((settle) => setTimeout(settle, 1100));
    await Deno.writeTextFile(file, "export const a = 3;\n");
    await Deno.utime(file, new Date(before[2]), new Date(before[2]));
  }
  assertEquals(freshBundle(c.root), undefined);
});

Deno.test("a removed input, another Deno or a broken manifest run the source", async () => {
  {
    await using c = await checkout();
    await Deno.remove(join(c.dir, "src", "a.ts"));
    assertEquals(freshBundle(c.root), undefined);
  }
  {
    await using c = await checkout();
    const path = join(c.dir, ".bundle", "current.json");
    const manifest = JSON.parse(await Deno.readTextFile(path)) as BundleManifest;
    await Deno.writeTextFile(path, JSON.stringify({ ...manifest, deno: "1.0.0" }));
    assertEquals(freshBundle(c.root), undefined);
    await Deno.writeTextFile(path, JSON.stringify(manifest).slice(0, 40));
    assertEquals(freshBundle(c.root), undefined);
    // A folder name that would leave .bundle/ is not followed.
    await Deno.writeTextFile(path, JSON.stringify({ ...manifest, folder: "../../tmp" }));
    assertEquals(freshBundle(c.root), undefined);
    // Nor a folder whose run entry the build did not write.
    await Deno.writeTextFile(path, JSON.stringify({ ...manifest, outputs: [] }));
    assertEquals(freshBundle(c.root), undefined);
  }
});

Deno.test("a bundle file written after the build, or another checkout's manifest, run the source", async () => {
  {
    await using c = await checkout();
    await Deno.writeTextFile(join(c.dir, ".bundle", "k1", "run.js"), 'console.log("x");\n');
    assertEquals(freshBundle(c.root), undefined);
  }
  {
    await using c = await checkout();
    await using other = await checkout();
    const manifest = JSON.parse(
      await Deno.readTextFile(join(other.dir, ".bundle", "current.json")),
    ) as BundleManifest;
    // Every stamp of c's files, but built for the other checkout.
    const copied = { ...manifest, inputs: unchangedManifest("current.json", c.root)!.inputs };
    copied.outputs = [stampOf(".bundle/k1/run.js", c.root)!];
    await Deno.writeTextFile(join(c.dir, ".bundle", "current.json"), JSON.stringify(copied));
    assertEquals(freshBundle(c.root), undefined);
    await Deno.writeTextFile(
      join(c.dir, ".bundle", "current.json"),
      JSON.stringify({ ...copied, root: c.root.href }),
    );
    assert(freshBundle(c.root) !== undefined);
  }
});

Deno.test("failed.json holds while its inputs are unchanged", async () => {
  await using c = await checkout();
  const failed = join(c.dir, ".bundle", "failed.json");
  await Deno.copyFile(join(c.dir, ".bundle", "current.json"), failed);
  assert(unchangedManifest("failed.json", c.root) !== undefined);
  await Deno.writeTextFile(join(c.dir, "deno.json"), '{ "fixed": true }\n');
  assertEquals(unchangedManifest("failed.json", c.root), undefined);
});

Deno.test("an input modified within the build's clock tick is rebuilt next run, an older one not", async () => {
  await using c = await checkout();
  const path = join(c.dir, ".bundle", "current.json");
  const manifest = JSON.parse(await Deno.readTextFile(path)) as BundleManifest;
  // src/a.ts was written just now: a write after the build read it may keep its stamp.
  const hourAgo = new Date(Date.now() - 3_600_000);
  await Deno.utime(join(c.dir, "deno.json"), hourAgo, hourAgo);
  const inputs = settledStamps(
    ["src/a.ts", "deno.json"].map((p) => stampOf(p, c.root)!),
    Date.now(),
  );
  assertEquals(inputs.map(([p, , mtime]) => [p, mtime < 0]), [["src/a.ts", true], [
    "deno.json",
    false,
  ]]);
  await Deno.writeTextFile(path, JSON.stringify({ ...manifest, inputs }));
  assertEquals(freshBundle(c.root), undefined);
  // Once src/a.ts is old enough too, the same build's manifest holds.
  await Deno.utime(join(c.dir, "src", "a.ts"), hourAgo, hourAgo);
  const settled = settledStamps(
    ["src/a.ts", "deno.json"].map((p) => stampOf(p, c.root)!),
    Date.now(),
  );
  await Deno.writeTextFile(path, JSON.stringify({ ...manifest, inputs: settled }));
  assert(freshBundle(c.root) !== undefined);
});
