// Line checks on the release and CI workflows (no YAML dependency): the five targets, the pinned
// Deno, the test-before-build order, the smoke test of three binaries on their own operating
// systems before publishing, SHA256SUMS, and that built-in plugins are embedded both by the
// workflow and by deno.json's "compile" task. Also ties install.sh's targets to the matrix.

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

function readRepoFile(path: string): Promise<string> {
  return Deno.readTextFile(new URL(path, ROOT));
}

/** The lines of job `name` (from `  name:` to the next job), trimmed. */
function jobLines(yml: string, name: string): string[] {
  const lines = yml.split("\n");
  const start = lines.indexOf(`  ${name}:`);
  assert(start >= 0, `release.yml has no job "${name}"`);
  const end = lines.findIndex((line, i) => i > start && /^ {2}\S/.test(line));
  return lines.slice(start, end < 0 ? undefined : end).map((line) => line.trim());
}

/** The `key: value` pairs of each entry of a job's `matrix: include:` list. */
function matrixEntries(job: string[]): Record<string, string>[] {
  const include = job.indexOf("include:");
  assert(include >= 0, `no matrix include list in ${job[0]}`);
  const entries: Record<string, string>[] = [];
  for (const line of job.slice(include + 1)) {
    const match = /^(- )?([a-z-]+): (.+)$/.exec(line);
    if (match === null) break;
    const [, dash, key = "", value = ""] = match;
    if (dash) entries.push({});
    const entry = entries.at(-1);
    if (entry === undefined) break;
    entry[key] = value.replace(/^"(.*)"$/, "$1");
  }
  return entries;
}

Deno.test("release.yml builds the five targets on a v* tag with pinned Deno 2.9.6", async () => {
  const yml = await readRepoFile(".github/workflows/release.yml");
  const lines = yml.split("\n").map((line) => line.trim());
  assert(lines.includes('tags: ["v*"]'), "must trigger on v* tags");
  const builds = matrixEntries(jobLines(yml, "build"));
  assertEquals(builds.map((entry) => entry.target).sort(), [...TARGETS].sort());
  for (const { target, ext } of builds) {
    assertEquals(ext, target?.includes("windows") ? ".exe" : "", `ext of ${target}`);
  }
  assert(lines.includes("DENO_VERSION: 2.9.6"), "Deno must be pinned to 2.9.6");
  const setups = lines.filter((line) => line.startsWith("- uses: denoland/setup-deno@"));
  assert(setups.length >= 3, "the test, build and smoke jobs set up Deno");
  assertEquals(
    lines.filter((line) => line === "deno-version: ${{ env.DENO_VERSION }}").length,
    setups.length,
  );
});

Deno.test("release.yml tests first, bundles, compiles with --target and --include plugins", async () => {
  const yml = await readRepoFile(".github/workflows/release.yml");
  assert(yml.includes("run: deno task test"), "the release must run the tests once");
  assert(/build:\n\s+needs: test\n/.test(yml), "build must wait for the tests");
  const compile = yml.slice(
    yml.indexOf("deno compile"),
    yml.indexOf("main.ts", yml.indexOf("deno compile")),
  );
  for (
    const part of [
      "-A",
      "--unstable-worker-options",
      "--include plugins",
      "--target ${{ matrix.target }}",
    ]
  ) {
    assert(compile.includes(part), `compile step lacks ${part}: ${compile}`);
  }
  assert(compile.includes("--output dist/harness-${{ matrix.target }}${{ matrix.ext }}"), compile);
  // Every flag of deno.json's "compile" task (the worker and plugins embedded, no prompts).
  const task: string = JSON.parse(await readRepoFile("deno.json")).tasks.compile;
  const start = task.indexOf("deno compile ") + "deno compile ".length;
  const taskFlags = task.slice(start, task.indexOf("--output")).trim();
  // The binary starts from the bundle (main.ts), built before it is embedded, as the task does.
  assert(task.startsWith("deno run -A scripts/build_bundle.ts --prune && "), task);
  const bundle = yml.indexOf("run: deno run -A scripts/build_bundle.ts --prune");
  assert(bundle >= 0 && bundle < yml.indexOf("- name: Compile"), "no bundle built before compile");
  assert(compile.includes("--include .bundle"), compile);
  for (const flag of taskFlags.split(/ (?=-)/)) {
    assert(compile.replace(/\s+/g, " ").includes(flag), `compile step lacks "${flag}": ${compile}`);
  }
  // And every module it embeds exists (a removed worker's --include fails the build).
  for (const [, path] of compile.matchAll(/--include ([\w./-]+)(?=\s)/g)) {
    if (path === ".bundle") continue; // built by the step before
    assert(existsSync(fileURLToPath(new URL(`../../${path}`, import.meta.url))), `no ${path}`);
  }
});

Deno.test("release.yml smoke-tests three binaries on their own systems before publishing", async () => {
  const yml = await readRepoFile(".github/workflows/release.yml");
  const smoke = jobLines(yml, "smoke");
  assert(smoke.includes("needs: build"), "the smoke runs test the built binaries");
  assert(smoke.includes("runs-on: ${{ matrix.os }}"), "each binary runs on its own system");
  assert(smoke.includes("fail-fast: false"), "every platform reports, even after one fails");
  // Linux x86_64, macOS arm64 and Windows x86_64: the targets hosted runners run natively.
  assertEquals(matrixEntries(smoke), [
    { os: "ubuntu-latest", target: "x86_64-unknown-linux-gnu", ext: "" },
    { os: "macos-latest", target: "aarch64-apple-darwin", ext: "" },
    { os: "windows-latest", target: "x86_64-pc-windows-msvc", ext: ".exe" },
  ]);
  const builds = matrixEntries(jobLines(yml, "build"));
  for (const { target, ext } of matrixEntries(smoke)) {
    assert(
      builds.some((build) => build.target === target && build.ext === ext),
      `${target}${ext} is not built`,
    );
  }
  // The binary of this runner's target, as the build job uploaded it (without its exec bit).
  assert(smoke.includes("name: harness-${{ matrix.target }}"), "downloads the wrong artifact");
  const binary = '"dist/harness-${{ matrix.target }}${{ matrix.ext }}"';
  assert(smoke.includes(`chmod +x ${binary}`), "the downloaded binary must be made executable");
  const run = `deno run -A scripts/smoke_release.ts -- ${binary} | tee smoke.log`;
  assert(smoke.includes(run), `the smoke step must run: ${run}`);
  assert(smoke.includes("deno-version: ${{ env.DENO_VERSION }}"), "Deno runs the smoke script");
  // Bash everywhere, whose default options (-eo pipefail) keep the script's exit code past tee.
  assert(smoke.includes("shell: bash"), "the smoke steps must run in bash");
  const linuxPackages = smoke.indexOf("if: runner.os == 'Linux'");
  assert(
    linuxPackages >= 0 && smoke[linuxPackages + 1] === "run: bash .ci/install_system_packages",
    "Linux needs bubblewrap (and user namespaces) for run_command's sandbox",
  );
  await Deno.stat(new URL("scripts/smoke_release.ts", ROOT));
});

Deno.test("release.yml computes SHA256SUMS and attaches every file to the release", async () => {
  const yml = await readRepoFile(".github/workflows/release.yml");
  const release = jobLines(yml, "release");
  assert(
    release.includes("needs: [build, smoke]"),
    "the release job must wait for the builds and every smoke run",
  );
  // A job-level `if:` (always(), failure()) could publish after a failed smoke run.
  assert(!release.some((line) => line.startsWith("if:")), "the release job must not override");
  assert(yml.includes("contents: write"), "creating a release needs contents: write");
  assert(yml.includes("sha256sum harness-* install.sh > SHA256SUMS"), "SHA256SUMS step missing");
  assert(yml.includes('gh release create "${GITHUB_REF_NAME}" dist/*'), "release step missing");
  assert(yml.includes("merge-multiple: true"), "artifacts must land in one folder");
});

Deno.test("release.yml fills in the repository of the install.sh it publishes", async () => {
  const yml = await readRepoFile(".github/workflows/release.yml");
  const script = await readRepoFile("install.sh");
  assertEquals(
    script.split("\n").filter((line) => line.startsWith("HARNESS_DEFAULT_REPO=")).length,
    1,
  );
  assert(
    yml.includes('s|^HARNESS_DEFAULT_REPO=.*|HARNESS_DEFAULT_REPO=\\"${GITHUB_REPOSITORY}\\"|'),
  );
});

Deno.test("install.sh knows every non-Windows release target", async () => {
  const script = await readRepoFile("install.sh");
  for (const target of TARGETS.filter((target) => !target.includes("windows"))) {
    assert(script.includes(`target="${target}"`), `install.sh never selects ${target}`);
  }
  assert(script.includes("harness-x86_64-pc-windows-msvc.exe"), "Windows users need a pointer");
});

Deno.test("deno.json compile task embeds the bundle and the plugins folder", async () => {
  const config = JSON.parse(await readRepoFile("deno.json")) as { tasks: Record<string, string> };
  const compile = config.tasks["compile"] ?? "";
  assert(/^deno run -A scripts\/build_bundle\.ts --prune && deno compile /.test(compile), compile);
  assert(compile.includes("--include .bundle "), compile);
  assert(compile.includes("--include plugins"), compile);
  assert(compile.includes("--unstable-worker-options"), compile);
});

Deno.test("ci.yml runs .ci/run on push and pull request", async () => {
  const yml = await readRepoFile(".github/workflows/ci.yml");
  const lines = yml.split("\n").map((line) => line.trim());
  assert(lines.includes("push:") && lines.includes("pull_request:"), yml);
  assert(lines.includes("run: bash .ci/run"), yml);
});
