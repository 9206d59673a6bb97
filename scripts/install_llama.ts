// `deno task install-llama`: installs node-llama-cpp for in-process models (--model-file).
// npm fetches two tarballs only (`npm pack`: node-llama-cpp and this platform's prebuilt CPU
// binaries; no dependency tree, no install scripts, no GPU variants) into vendor/llama/. The
// library's bare imports are pinned to `npm:` specifiers, which Deno fetches on first use.

import { dirname, join, relative } from "node:path";
import {
  errorText,
  importNodeLlamaCpp,
  installedVersion,
  NODE_LLAMA_CPP_DIR,
  NODE_LLAMA_CPP_VERSION,
  PLATFORM_DIR,
} from "../src/providers/llama_cpp/node_llama_cpp.ts";

/** Runs a command and returns its stdout; throws with stderr on failure. */
async function run(cmd: string, args: string[], cwd?: string): Promise<string> {
  const output = await new Deno.Command(cmd, {
    args,
    ...(cwd ? { cwd } : {}),
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decoder = new TextDecoder();
  if (!output.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${decoder.decode(output.stderr).trim()}`);
  }
  return decoder.decode(output.stdout);
}

/** The prebuilt-binary package for this OS and CPU (CPU build; Metal on Apple silicon). */
export function platformPackage(): string | undefined {
  const { os, arch } = Deno.build;
  const table: Record<string, string> = {
    "linux-x86_64": "linux-x64",
    "linux-aarch64": "linux-arm64",
    "darwin-aarch64": "mac-arm64-metal",
    "darwin-x86_64": "mac-x64",
    "windows-x86_64": "win-x64",
    "windows-aarch64": "win-arm64",
  };
  return table[`${os}-${arch}`];
}

/** `npm pack`s one package and unpacks it to `destination` (replacing it). */
async function fetchPackage(spec: string, destination: string): Promise<void> {
  const temp = await Deno.makeTempDir({ prefix: "harness-llama-" });
  try {
    const npm = Deno.build.os === "windows" ? "npm.cmd" : "npm";
    const packed = await run(npm, ["pack", spec, "--pack-destination", temp, "--silent"], temp);
    const tarball = join(temp, packed.trim().split("\n").at(-1) ?? "");
    await run("tar", ["-xzf", tarball, "-C", temp]);
    await Deno.remove(destination, { recursive: true }).catch(() => {});
    await Deno.mkdir(dirname(destination), { recursive: true });
    await Deno.rename(join(temp, "package"), destination);
  } finally {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
  }
}

/** Unpacks node-llama-cpp and this platform's binaries and prepares them to run under Deno. */
async function unpack(platform: string): Promise<void> {
  await fetchPackage(`node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`, NODE_LLAMA_CPP_DIR);
  await fetchPackage(
    `@node-llama-cpp/${platform}@${NODE_LLAMA_CPP_VERSION}`,
    join(PLATFORM_DIR, platform),
  );

  // The llama.cpp source bundle is only used to build from source, which we never do.
  await Deno.remove(join(NODE_LLAMA_CPP_DIR, "llama", "gitRelease.bundle")).catch(() => {});

  const pkgPath = join(NODE_LLAMA_CPP_DIR, "package.json");
  const pkg: Record<string, unknown> = JSON.parse(await Deno.readTextFile(pkgPath));
  const dependencies: Record<string, string> = {};
  if (typeof pkg.dependencies === "object" && pkg.dependencies !== null) {
    for (const [name, range] of Object.entries(pkg.dependencies)) {
      if (typeof range === "string") dependencies[name] = range;
    }
  }
  const rewritten = await pinImports(join(NODE_LLAMA_CPP_DIR, "dist"), dependencies, platform);
  // Nothing may install the dependency tree, the GPU packages or run the postinstall script.
  delete pkg.dependencies;
  delete pkg.optionalDependencies;
  delete pkg.devDependencies;
  delete pkg.scripts;
  await Deno.writeTextFile(pkgPath, JSON.stringify(pkg, null, 2) + "\n");
  // node-llama-cpp tests the native binary in a child `deno` started on one of its files; a
  // package.json alone would put that child in node_modules mode, so give it Deno's default.
  await Deno.writeTextFile(
    join(NODE_LLAMA_CPP_DIR, "deno.json"),
    JSON.stringify({ nodeModulesDir: "none" }, null, 2) + "\n",
  );
  console.log(`Pinned ${rewritten} bare imports to npm: specifiers`);
}

/**
 * Rewrites the bare imports of the library's own files: a dependency `x/sub` becomes
 * `npm:x@<range>/sub` and this platform's binary package becomes a relative path. Other
 * platforms' packages stay bare, so importing them fails and the library skips them.
 */
async function pinImports(
  dir: string,
  dependencies: Record<string, string>,
  platform: string,
): Promise<number> {
  const platformEntry = join(PLATFORM_DIR, platform, "dist", "index.js");
  const pattern = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"'./][^"']*)\2/g;
  let count = 0;
  for await (const file of walkJs(dir)) {
    const source = await Deno.readTextFile(file);
    const pinned = source.replace(pattern, (whole, lead: string, quote: string, spec: string) => {
      if (spec === `@node-llama-cpp/${platform}`) {
        count++;
        const relativePath = relative(dirname(file), platformEntry).replaceAll("\\", "/");
        return `${lead}${quote}${relativePath.startsWith(".") ? "" : "./"}${relativePath}${quote}`;
      }
      const name = spec.startsWith("@")
        ? spec.split("/").slice(0, 2).join("/")
        : spec.split("/")[0] ?? spec;
      const range = dependencies[name];
      if (range === undefined) return whole;
      count++;
      return `${lead}${quote}npm:${name}@${range}${spec.slice(name.length)}${quote}`;
    });
    if (pinned !== source) await Deno.writeTextFile(file, pinned);
  }
  return count;
}

async function* walkJs(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walkJs(path);
    else if (entry.isFile && entry.name.endsWith(".js")) yield path;
  }
}

async function main(): Promise<number> {
  const started = performance.now();
  const platform = platformPackage();
  if (platform === undefined) {
    throw new Error(`no prebuilt llama.cpp binaries for ${Deno.build.os} ${Deno.build.arch}`);
  }
  const platformReady = await Deno.stat(join(PLATFORM_DIR, platform, "bins")).then(
    () => true,
    () => false,
  );
  if (await installedVersion() === NODE_LLAMA_CPP_VERSION && platformReady) {
    console.log(`node-llama-cpp ${NODE_LLAMA_CPP_VERSION} already unpacked in vendor/llama`);
  } else {
    console.log(
      `Fetching node-llama-cpp ${NODE_LLAMA_CPP_VERSION} and @node-llama-cpp/${platform}...`,
    );
    await unpack(platform);
  }
  // Loading the bindings once downloads the JavaScript dependencies and this platform's
  // prebuilt binary into Deno's cache and proves the native addon loads.
  const lib = await importNodeLlamaCpp();
  if (!lib.ok) throw new Error(lib.reason);
  const llama = await lib.module.getLlama({
    gpu: false,
    build: "never",
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    logLevel: "error",
    logger: () => {},
  });
  await llama.dispose();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`node-llama-cpp ${NODE_LLAMA_CPP_VERSION} ready (CPU binaries load) in ${seconds}s`);
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main());
  } catch (error) {
    console.error(`Cannot install node-llama-cpp: ${errorText(error)}`);
    Deno.exit(1);
  }
}
