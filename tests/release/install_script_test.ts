// Runs the real install.sh (with /bin/sh) against a fake release on disk: a fake binary per
// target plus SHA256SUMS, reached through file:// or a Deno.serve loopback server. Covers
// platform detection, URLs, a real install, and refusing a download whose checksum is wrong.

import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { hasCommand } from "../helpers/system_commands.ts";

const INSTALL_SH = fileURLToPath(new URL("../../install.sh", import.meta.url));

const SUPPORTED: Array<[string, string, string]> = [
  ["Linux", "x86_64", "x86_64-unknown-linux-gnu"],
  ["Linux", "amd64", "x86_64-unknown-linux-gnu"],
  ["Linux", "aarch64", "aarch64-unknown-linux-gnu"],
  ["Linux", "arm64", "aarch64-unknown-linux-gnu"],
  ["Darwin", "x86_64", "x86_64-apple-darwin"],
  ["Darwin", "arm64", "aarch64-apple-darwin"],
];

interface TempDir extends AsyncDisposable {
  path: string;
}

async function makeTempDir(): Promise<TempDir> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_install_test_" }));
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

interface ShResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs install.sh with only the given environment (plus PATH and HOME). */
async function runInstall(args: string[], env: Record<string, string>): Promise<ShResult> {
  const output = await new Deno.Command("sh", {
    args: [INSTALL_SH, ...args],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

function fakeBinary(target: string): string {
  return `#!/bin/sh\necho "fake harness ${target} $*"\n`;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Lays out a release the way GitHub serves one: `latest/download/ASSET` or
 * `download/TAG/ASSET`, with SHA256SUMS in `sha256sum` format. `badSumFor` gets a wrong hash.
 */
async function writeFakeRelease(
  root: string,
  options: { version?: string; badSumFor?: string; omitSumFor?: string } = {},
): Promise<void> {
  const version = options.version ?? "latest";
  const dir = version === "latest"
    ? join(root, "latest", "download")
    : join(root, "download", version);
  await Deno.mkdir(dir, { recursive: true });
  const lines: string[] = [];
  for (const [, , target] of SUPPORTED) {
    const asset = `harness-${target}`;
    const body = fakeBinary(target);
    await Deno.writeTextFile(join(dir, asset), body);
    if (lines.some((line) => line.endsWith(`  ${asset}`)) || target === options.omitSumFor) {
      continue;
    }
    const sum = target === options.badSumFor ? sha256("something else") : sha256(body);
    lines.push(`${sum}  ${asset}`);
  }
  await Deno.writeTextFile(join(dir, "SHA256SUMS"), lines.join("\n") + "\n");
}

/** Serves `root` on 127.0.0.1 like a static release host; 404 for anything missing. */
function serveDir(root: string): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    if (path.includes("..")) return new Response("bad path", { status: 400 });
    try {
      return new Response(await Deno.readFile(join(root, path)));
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
}

Deno.test("install.sh --dry-run maps each supported uname pair to its release target", async () => {
  for (const [unameS, unameM, target] of SUPPORTED) {
    const result = await runInstall(["--dry-run"], {
      HARNESS_UNAME_S: unameS,
      HARNESS_UNAME_M: unameM,
      HARNESS_RELEASE_URL: "https://example.test/releases",
      HARNESS_INSTALL_DIR: "/opt/harness/bin",
    });
    assertEquals(result.code, 0, result.stderr);
    assert(result.stdout.includes(`target:   ${target}\n`), result.stdout);
    assert(
      result.stdout.includes(
        `binary:   https://example.test/releases/latest/download/harness-${target}\n`,
      ),
      result.stdout,
    );
    assert(
      result.stdout.includes("sums:     https://example.test/releases/latest/download/SHA256SUMS"),
      result.stdout,
    );
    assert(result.stdout.includes("install:  /opt/harness/bin/harness"), result.stdout);
  }
});

Deno.test("install.sh --dry-run uses the tag path for a pinned HARNESS_VERSION", async () => {
  const result = await runInstall(["--dry-run"], {
    HARNESS_UNAME_S: "Linux",
    HARNESS_UNAME_M: "x86_64",
    HARNESS_VERSION: "v1.2.3",
    HARNESS_RELEASE_URL: "https://example.test/releases/",
    HOME: "/home/someone",
  });
  assertEquals(result.code, 0, result.stderr);
  assert(
    result.stdout.includes(
      "https://example.test/releases/download/v1.2.3/harness-x86_64-unknown-linux-gnu",
    ),
    result.stdout,
  );
  assert(result.stdout.includes("install:  /home/someone/.local/bin/harness"), result.stdout);
});

Deno.test("install.sh --dry-run defaults to the GitHub releases of HARNESS_REPO", async () => {
  const result = await runInstall(["--dry-run"], {
    HARNESS_UNAME_S: "Darwin",
    HARNESS_UNAME_M: "arm64",
    HARNESS_REPO: "someone/harness",
    HOME: "/home/someone",
  });
  assertEquals(result.code, 0, result.stderr);
  assert(
    result.stdout.includes(
      "https://github.com/someone/harness/releases/latest/download/harness-aarch64-apple-darwin",
    ),
    result.stdout,
  );
});

Deno.test("install.sh refuses an unsupported platform with a clear error", async () => {
  for (
    const [unameS, unameM] of [["FreeBSD", "amd64"], ["Linux", "riscv64"], ["Linux", "armv7l"]]
  ) {
    const result = await runInstall(["--dry-run"], {
      HARNESS_UNAME_S: unameS!,
      HARNESS_UNAME_M: unameM!,
    });
    assert(result.code !== 0, `expected failure for ${unameS} ${unameM}`);
    assert(
      result.stderr.includes(`error: Unsupported platform "${unameS} ${unameM}"`),
      result.stderr,
    );
    assert(result.stderr.includes("deno task compile"), result.stderr);
    assertEquals(result.stdout, "");
  }
  const windows = await runInstall(["--dry-run"], {
    HARNESS_UNAME_S: "MINGW64_NT-10.0",
    HARNESS_UNAME_M: "x86_64",
  });
  assert(windows.code !== 0);
  assert(windows.stderr.includes("harness-x86_64-pc-windows-msvc.exe"), windows.stderr);
});

Deno.test("install.sh rejects an unknown argument", async () => {
  const result = await runInstall(["--frobnicate"], {});
  assert(result.code !== 0);
  assert(result.stderr.includes('Unknown argument "--frobnicate"'), result.stderr);
});

Deno.test("install.sh downloads from a loopback server, verifies and installs the binary", async () => {
  await using tmp = await makeTempDir();
  await writeFakeRelease(join(tmp.path, "releases"));
  await using server = serveDir(join(tmp.path, "releases"));
  const installDir = join(tmp.path, "bin");
  const result = await runInstall([], {
    HARNESS_UNAME_S: "Linux",
    HARNESS_UNAME_M: "aarch64",
    HARNESS_RELEASE_URL: `http://127.0.0.1:${server.addr.port}`,
    HARNESS_INSTALL_DIR: installDir,
    HOME: tmp.path,
  });
  assertEquals(result.code, 0, result.stderr);
  const installed = join(installDir, "harness");
  assertEquals(await Deno.readTextFile(installed), fakeBinary("aarch64-unknown-linux-gnu"));
  assert(((await Deno.stat(installed)).mode ?? 0) & 0o100, "binary must be executable");
  assertEquals([...Deno.readDirSync(installDir)].map((entry) => entry.name), ["harness"]);
  assert(result.stdout.includes(`Installed harness latest (aarch64-unknown-linux-gnu)`));
  // installDir is not on PATH: the script says how to add it.
  assert(result.stdout.includes(`export PATH="${installDir}:$PATH"`), result.stdout);

  const run = await new Deno.Command(installed, { args: ["--version"] }).output();
  assertEquals(
    new TextDecoder().decode(run.stdout),
    "fake harness aarch64-unknown-linux-gnu --version\n",
  );
});

Deno.test({
  name: "install.sh works with wget and a pinned version",
  // The curl path is covered above; wget is optional on a dev machine.
  ignore: !hasCommand("wget"),
}, async () => {
  await using tmp = await makeTempDir();
  await writeFakeRelease(join(tmp.path, "releases"), { version: "v0.9.0" });
  await using server = serveDir(join(tmp.path, "releases"));
  const installDir = join(tmp.path, "bin");
  const result = await runInstall([], {
    HARNESS_UNAME_S: "Darwin",
    HARNESS_UNAME_M: "x86_64",
    HARNESS_VERSION: "v0.9.0",
    HARNESS_DOWNLOADER: "wget",
    HARNESS_RELEASE_URL: `http://127.0.0.1:${server.addr.port}`,
    HARNESS_INSTALL_DIR: installDir,
    PATH: `${installDir}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    HOME: tmp.path,
  });
  assertEquals(result.code, 0, result.stderr);
  assertEquals(
    await Deno.readTextFile(join(installDir, "harness")),
    fakeBinary("x86_64-apple-darwin"),
  );
  // installDir is on PATH: no PATH advice.
  assert(!result.stdout.includes("export PATH"), result.stdout);
});

Deno.test("install.sh installs from a file:// release", async () => {
  await using tmp = await makeTempDir();
  await writeFakeRelease(join(tmp.path, "releases"));
  const installDir = join(tmp.path, "nested", "bin");
  const result = await runInstall([], {
    HARNESS_UNAME_S: "Darwin",
    HARNESS_UNAME_M: "arm64",
    HARNESS_RELEASE_URL: pathToFileURL(join(tmp.path, "releases")).href,
    HARNESS_INSTALL_DIR: installDir,
    HOME: tmp.path,
  });
  assertEquals(result.code, 0, result.stderr);
  assertEquals(
    await Deno.readTextFile(join(installDir, "harness")),
    fakeBinary("aarch64-apple-darwin"),
  );
});

Deno.test("install.sh refuses a checksum mismatch and installs nothing", async () => {
  await using tmp = await makeTempDir();
  await writeFakeRelease(join(tmp.path, "releases"), { badSumFor: "x86_64-unknown-linux-gnu" });
  await using server = serveDir(join(tmp.path, "releases"));
  const installDir = join(tmp.path, "bin");
  const result = await runInstall([], {
    HARNESS_UNAME_S: "Linux",
    HARNESS_UNAME_M: "x86_64",
    HARNESS_RELEASE_URL: `http://127.0.0.1:${server.addr.port}`,
    HARNESS_INSTALL_DIR: installDir,
    HOME: tmp.path,
  });
  assert(result.code !== 0, "a mismatch must fail");
  assert(
    result.stderr.includes('error: Checksum mismatch for "harness-x86_64-unknown-linux-gnu"'),
    result.stderr,
  );
  assert(result.stderr.includes("nothing was installed"), result.stderr);
  assert(!result.stdout.includes("Installed"), result.stdout);
  const exists = await Deno.stat(join(installDir, "harness")).then(() => true, () => false);
  assert(!exists, "nothing may be installed after a checksum mismatch");
});

Deno.test("install.sh refuses a release whose SHA256SUMS lacks the binary", async () => {
  await using tmp = await makeTempDir();
  await writeFakeRelease(join(tmp.path, "releases"), { omitSumFor: "aarch64-apple-darwin" });
  const installDir = join(tmp.path, "bin");
  const result = await runInstall([], {
    HARNESS_UNAME_S: "Darwin",
    HARNESS_UNAME_M: "arm64",
    HARNESS_RELEASE_URL: pathToFileURL(join(tmp.path, "releases")).href,
    HARNESS_INSTALL_DIR: installDir,
    HOME: tmp.path,
  });
  assert(result.code !== 0);
  assert(
    result.stderr.includes('SHA256SUMS has no line for "harness-aarch64-apple-darwin"'),
    result.stderr,
  );
  const exists = await Deno.stat(join(installDir, "harness")).then(() => true, () => false);
  assert(!exists);
});

Deno.test("install.sh reports a missing release with the URL it tried", async () => {
  await using tmp = await makeTempDir();
  await writeFakeRelease(join(tmp.path, "releases"));
  await using server = serveDir(join(tmp.path, "releases"));
  const result = await runInstall([], {
    HARNESS_UNAME_S: "Linux",
    HARNESS_UNAME_M: "x86_64",
    HARNESS_VERSION: "v404.0.0",
    HARNESS_RELEASE_URL: `http://127.0.0.1:${server.addr.port}`,
    HARNESS_INSTALL_DIR: join(tmp.path, "bin"),
    HOME: tmp.path,
  });
  assert(result.code !== 0);
  assert(
    result.stderr.includes(
      `Cannot download "http://127.0.0.1:${server.addr.port}/download/v404.0.0/harness-x86_64-unknown-linux-gnu"`,
    ),
    result.stderr,
  );
});
