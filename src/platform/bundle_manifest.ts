// Whether harness's bundle is fresh. scripts/build_bundle.ts builds the bundle into
// .bundle/KEY/ beside main.ts and writes .bundle/current.json: the bundle's folder, the
// checkout it was built in, the Deno that built it, every file it was built from (each local
// module, deno.json, deno.lock) and every file it wrote, with their size and times. main.ts
// runs the bundle only while every one of those files still has them, so an edit anywhere in
// the source runs the source until the bundle is rebuilt, and a bundle file changed after the
// build (garbled, or written by anyone but the build) is never run; the rebuild starts in the
// background (one at a time). A build that failed records its inputs in failed.json and is
// not tried again until one of them changes. HARNESS_BUNDLE=0 runs the source whatever the
// bundle.
//
// The bundle is harness's own cache of its source: it lives in the checkout (never in the
// folder harness works on), is found from main.ts's own URL, and is written only by the build
// script, so only whoever can write the checkout's source can write it. The gate protects it
// from tools, commands and editors whatever the grants (src/gate/protected_set.ts).

import { HARNESS_ROOT } from "./own_modules.ts";
import { settledBy, UNSETTLED } from "./racy_stamp.ts";

/** One file a bundle was built from: its path in the checkout, size, mtime and ctime (ms). */
export type InputStamp = [path: string, size: number, mtime: number, ctime: number];

/** .bundle/current.json (and failed.json, without a folder). */
export interface BundleManifest {
  /** The bundle's folder under .bundle/ (its run entry is run.js there). */
  folder: string;
  /** The checkout it was built in, as a URL: a bundle copied from another is not run. */
  root: string;
  /** The Deno version that built it. */
  deno: string;
  inputs: InputStamp[];
  /** The files the build wrote, as .bundle/FOLDER/NAME (none in failed.json). */
  outputs: InputStamp[];
}

/**
 * Stamps as a manifest keeps them: one modified too close to `at` (racy_stamp.ts) keeps no
 * time, so the next run finds it changed and rebuilds rather than trust a bundle that may
 * have read the file before a write its stamp cannot show.
 *
 * @param stamps The inputs' stamps.
 * @param at When they were taken (before the build read the files), epoch milliseconds.
 */
export function settledStamps(stamps: InputStamp[], at: number): InputStamp[] {
  return stamps.map((stamp) => {
    const [path, size, mtime, ctime] = stamp;
    return settledBy(mtime, at) ? stamp : [path, size, UNSETTLED, ctime];
  });
}

/** The folder every bundle and manifest of a checkout lives in. */
export function bundleRoot(root: URL = HARNESS_ROOT): URL {
  return new URL(".bundle/", root);
}

/**
 * The folder every bundle of a checkout lives in, as a path (the gate protects it).
 *
 * @param root The checkout (default: this one).
 */
export function bundleFolder(root: URL = HARNESS_ROOT): string {
  return `${folderOf(root)}.bundle`;
}

/**
 * A file's stamp, or undefined when it cannot be read (gone: the bundle is stale).
 *
 * @param path The file's path in the checkout.
 * @param root The checkout (default: this one).
 */
export function stampOf(path: string, root: URL = HARNESS_ROOT): InputStamp | undefined {
  return stampAt(folderOf(root), path);
}

/**
 * The checkout's folder as a path ending in "/", for Deno's file calls: a run checks some 700
 * stamps before it starts, and a path string stats in half the time of a URL.
 */
function folderOf(root: URL): string {
  const path = decodeURIComponent(root.pathname);
  if (Deno.build.os !== "windows") return path;
  // file:///C:/x/ is C:/x/; file://server/share/x/ is //server/share/x/.
  return root.host === "" ? path.slice(1) : `//${root.host}${path}`;
}

function stampAt(folder: string, path: string): InputStamp | undefined {
  try {
    const info = Deno.statSync(folder + path);
    return [path, info.size, info.mtime?.getTime() ?? 0, info.ctime?.getTime() ?? 0];
  } catch {
    return undefined;
  }
}

function sameStamp(stamp: InputStamp, folder: string): boolean {
  const now = stampAt(folder, stamp[0]);
  return now !== undefined && now[1] === stamp[1] && now[2] === stamp[2] &&
    now[3] === stamp[3];
}

/**
 * Reads a manifest of .bundle/ and checks it against the files it lists.
 *
 * @param name "current.json" or "failed.json".
 * @param root The checkout (default: this one).
 * @returns The manifest when this Deno built it and no input changed since.
 */
export function unchangedManifest(
  name: string,
  root: URL = HARNESS_ROOT,
): BundleManifest | undefined {
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(Deno.readTextFileSync(new URL(name, bundleRoot(root))));
  } catch {
    return undefined; // no bundle built here yet, or a half-written one
  }
  if (
    manifest.deno !== Deno.version.deno || !Array.isArray(manifest.inputs) ||
    !Array.isArray(manifest.outputs)
  ) return undefined;
  // A compiled binary's files cannot change (and carry no times of their own).
  if (Deno.build.standalone) return manifest;
  if (manifest.root !== root.href) return undefined;
  const folder = folderOf(root);
  const stamps = [...manifest.inputs, ...manifest.outputs];
  return stamps.every((stamp) => sameStamp(stamp, folder)) ? manifest : undefined;
}

/**
 * The run entry of the current bundle when it is fresh.
 *
 * @param root The checkout (default: this one).
 * @returns The URL of .bundle/KEY/run.js, or undefined: run the source.
 *
 * @example
 * ```ts
 * import { freshBundle } from "./bundle_manifest.ts";
 * const entry = freshBundle();
 * if (entry !== undefined && !entry.href.endsWith("/run.js")) throw new Error(entry.href);
 * ```
 */
export function freshBundle(root: URL = HARNESS_ROOT): URL | undefined {
  const manifest = unchangedManifest("current.json", root);
  if (manifest === undefined || !/^[\w-]+$/.test(manifest.folder)) return undefined;
  const entry = `.bundle/${manifest.folder}/run.js`;
  // Only a file the build wrote, and checked above, runs.
  if (!manifest.outputs.some(([path]) => path === entry)) return undefined;
  return new URL(entry, root);
}

/**
 * Starts scripts/build_bundle.ts in the background, unless the last build failed on these
 * very files or a build is under way. Nothing of it is shown; it outlives this process.
 */
export function startBundleBuild(): void {
  if (unchangedManifest("failed.json") !== undefined) return;
  try {
    const lock = Deno.statSync(new URL("build.lock", bundleRoot()));
    if (Date.now() - (lock.mtime?.getTime() ?? 0) < BUILD_LOCK_MS) return;
  } catch {
    // no build under way
  }
  try {
    Deno.mkdirSync(bundleRoot(), { recursive: true });
  } catch {
    return; // a checkout this user cannot write (installed for all users): the source runs
  }
  try {
    const script = new URL("scripts/build_bundle.ts", HARNESS_ROOT);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-prompt", script.href, "--quiet"],
      // The checkout, not the run's folder: the build outlives the run, and the folder may not.
      cwd: folderOf(HARNESS_ROOT),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    child.unref();
  } catch {
    // a checkout without the script, or no permission to run Deno: the source runs
  }
}

/** How long a build may hold .bundle/build.lock before another may take it over. */
export const BUILD_LOCK_MS = 5 * 60_000;
