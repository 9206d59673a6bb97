// Line checks on the release and CI workflows (no YAML dependency): the five targets, the pinned
// Deno, the test-before-build order, SHA256SUMS, and that built-in plugins are embedded both by
// the workflow and by deno.json's "compile" task. Also ties install.sh's targets to the matrix.

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

Deno.test("release.yml builds the five targets on a v* tag with pinned Deno 2.9.6", async () => {
  const yml = await readRepoFile(".github/workflows/release.yml");
  const lines = yml.split("\n").map((line) => line.trim());
  assert(lines.includes('tags: ["v*"]'), "must trigger on v* tags");
  const matrixTargets = lines
    .filter((line) => line.startsWith("- target: "))
    .map((line) => line.slice("- target: ".length));
  assertEquals(matrixTargets.sort(), [...TARGETS].sort());
  assert(lines.includes('ext: ".exe"'), "the Windows binary must end in .exe");
  assert(lines.includes("DENO_VERSION: 2.9.6"), "Deno must be pinned to 2.9.6");
  const setups = lines.filter((line) => line.startsWith("- uses: denoland/setup-deno@"));
  assert(setups.length >= 2, "test and build jobs both set up Deno");
  assertEquals(
    lines.filter((line) => line === "deno-version: ${{ env.DENO_VERSION }}").length,
    setups.length,
  );
});

Deno.test("release.yml tests first, compiles with --target and --include plugins", async () => {
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
  const taskFlags = task.slice("deno compile ".length, task.indexOf("--output")).trim();
  for (const flag of taskFlags.split(/ (?=-)/)) {
    assert(compile.replace(/\s+/g, " ").includes(flag), `compile step lacks "${flag}": ${compile}`);
  }
});

Deno.test("release.yml computes SHA256SUMS and attaches every file to the release", async () => {
  const yml = await readRepoFile(".github/workflows/release.yml");
  assert(/release:\n\s+needs: build\n/.test(yml), "the release job must wait for the builds");
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

Deno.test("deno.json compile task embeds the plugins folder", async () => {
  const config = JSON.parse(await readRepoFile("deno.json")) as { tasks: Record<string, string> };
  const compile = config.tasks["compile"] ?? "";
  assert(compile.startsWith("deno compile "), compile);
  assert(compile.includes("--include plugins"), compile);
  assert(compile.includes("--unstable-worker-options"), compile);
});

Deno.test("ci.yml runs .ci/run on push and pull request", async () => {
  const yml = await readRepoFile(".github/workflows/ci.yml");
  const lines = yml.split("\n").map((line) => line.trim());
  assert(lines.includes("push:") && lines.includes("pull_request:"), yml);
  assert(lines.includes("run: bash .ci/run"), yml);
});
