// Which code a run starts from, on a copy of the checkout (src/platform/bundle_manifest.ts):
// a fresh bundle runs; an edited source file runs the source and starts a rebuild, whose
// bundle the next run uses; a bundle file changed after its build (garbled, or written by
// someone other than the build) never runs, nor a bundle copied with another checkout's files.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BundleManifest } from "../../src/platform/bundle_manifest.ts";
import { type CliSandbox, cliSandbox, shellEnv } from "../helpers/run_cli.ts";
import { printRunFiles } from "../helpers/bundle_files.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** What a run and a build of harness need of the checkout. */
const PARTS = ["main.ts", "bundle_entry.ts", "deno.json", "deno.lock", "src", "plugins", "scripts"];

/** A copy of this checkout, in `dir`. */
async function copyCheckout(dir: string, link = false, from = ROOT): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const parts = link ? [...PARTS, ".bundle"] : PARTS;
  const flags = link ? "-Rl" : "-R";
  const out = await new Deno.Command("cp", {
    args: [flags, ...parts.map((part) => join(from, part)), dir],
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
}

/** Runs the copy's main.ts in `cwd` (the sandbox's workspace); returns whether the bundle ran. */
async function runCopy(sandbox: CliSandbox, checkout: string, cwd = sandbox.cwd): Promise<
  { bundled: boolean; stdout: string }
> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-prompt",
      "--unstable-worker-options",
      join(checkout, "main.ts"),
      "tool",
      "get_working_directory",
      "{}",
    ],
    cwd,
    clearEnv: true,
    env: { ...shellEnv(), ...sandbox.env, HARNESS_TRACE_STARTUP: "1" },
    stdin: "null",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  const stdout = new TextDecoder().decode(out.stdout);
  assertEquals(out.code, 0, stderr);
  assert(stdout.includes(cwd), stdout);
  return { bundled: /^startup .* bundle checked$/m.test(stderr), stdout };
}

function manifestOf(checkout: string): BundleManifest | undefined {
  try {
    return JSON.parse(Deno.readTextFileSync(join(checkout, ".bundle", "current.json")));
  } catch {
    return undefined;
  }
}

/**
 * Waits until the checkout's manifest names a bundle other than `before` (a background build
 * finished), watching .bundle/ for the build's rename.
 */
async function nextBundle(checkout: string, before: string | undefined): Promise<BundleManifest> {
  const folder = join(checkout, ".bundle");
  await Deno.mkdir(folder, { recursive: true });
  using watcher = Deno.watchFs(folder, { recursive: false });
  const timer = setTimeout(() => watcher.close(), 120_000);
  try {
    let manifest = manifestOf(checkout);
    if (manifest !== undefined && manifest.folder !== before) return manifest;
    for await (const _ of watcher) {
      manifest = manifestOf(checkout);
      if (manifest !== undefined && manifest.folder !== before) return manifest;
    }
    throw new Error(`no new bundle was built in ${checkout}`);
  } finally {
    clearTimeout(timer);
  }
}

async function build(checkout: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(checkout, "scripts", "build_bundle.ts")],
    stdin: "null",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
}

Deno.test("a stale bundle runs the source and is rebuilt; a changed bundle file never runs", async () => {
  await using sandbox = await cliSandbox();
  const a = join(sandbox.home, "checkout");
  await copyCheckout(a);
  await build(a);
  const first = manifestOf(a)!;
  assert((await runCopy(sandbox, a)).bundled, "a fresh bundle runs");

  // An edit of a source file: the source runs, and a rebuild starts in the background. It
  // outlives the run and the folder the run was started in.
  await Deno.writeTextFile(join(a, "src", "platform", "real_path.ts"), "\n", { append: true });
  const gone = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_gone_" }));
  assert(!(await runCopy(sandbox, a, gone)).bundled, "an edited source runs from source");
  await Deno.remove(gone, { recursive: true });
  const rebuilt = await nextBundle(a, first.folder);
  assert(rebuilt.inputs.some(([path]) => path === "src/platform/real_path.ts"));
  // Merged all the same (Rollup reads the working folder when it loads).
  const loaded = printRunFiles(pathToFileURL(join(a, ".bundle", rebuilt.folder, "/")));
  assert(loaded !== undefined && loaded.size <= 45, `${loaded?.size} files`);
  assert((await runCopy(sandbox, a)).bundled, "the rebuilt bundle runs");

  // Code written into the bundle after its build: the run entry, then a chunk it loads.
  const bundle = join(a, ".bundle", rebuilt.folder);
  const chunk = /from (["'])\.\/([^"']+\.js)\1/.exec(
    await Deno.readTextFile(join(bundle, "run.js")),
  );
  for (const name of ["run.js", chunk![2]!]) {
    const file = join(bundle, name);
    const original = await Deno.readTextFile(file);
    await Deno.writeTextFile(file, `console.log("injected");\n${original}`);
    const run = await runCopy(sandbox, a);
    assert(!run.bundled && !run.stdout.includes("injected"), `${name}: ${run.stdout}`);
    // Put back byte for byte, the file is still not the one the build wrote (its times).
    await Deno.writeTextFile(file, original);
    assert(!(await runCopy(sandbox, a)).bundled, name);
  }
});

Deno.test("a bundle copied along with another checkout's files is not run there", async () => {
  await using sandbox = await cliSandbox();
  const a = join(sandbox.home, "a");
  const b = join(sandbox.home, "b");
  await copyCheckout(a);
  await build(a);
  assert((await runCopy(sandbox, a)).bundled);
  // Hard links: every file of b, its bundle too, has a's size and times.
  await copyCheckout(b, true, a);
  const copied = manifestOf(b)!;
  assert(!(await runCopy(sandbox, b)).bundled, "another checkout's bundle runs the source");
  // b builds its own, and a's stays a's.
  const own = await nextBundle(b, copied.folder);
  assertEquals(own.root, new URL(`file://${b}/`).href);
  assertEquals(manifestOf(a)!.root, new URL(`file://${a}/`).href);
  assert((await runCopy(sandbox, b)).bundled);
});
