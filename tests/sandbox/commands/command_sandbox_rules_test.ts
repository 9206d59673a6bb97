// The command sandbox's rules as text: bubblewrap's arguments and the macOS sandbox-exec
// profile built from the grants (the profile is tested here as text only: no macOS in CI),
// and the clean environment.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import {
  bwrapArguments,
  commandEnvironment,
  sandboxExecProfile,
} from "../../../src/sandbox/commands/command_sandbox_rules.ts";
import { describeCommandSandbox } from "../../../src/sandbox/commands/command_sandbox.ts";
import { probeCommandSandbox } from "../../../src/sandbox/commands/command_sandbox_probe.ts";
import { type Grants } from "../../../src/sandbox/grants/grants.ts";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";

function grantsOf(flags: string[], cwd = "/w"): Grants {
  const parsed = parseGrantFlags(flags, { cwd });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value.grants;
}

/** The pairs of `option source destination` in bwrap's arguments, as one string each. */
function mounts(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (/^--(ro-)?bind(-try)?$/.test(arg)) out.push(`${arg} ${args[++i]} ${args[++i]}`);
    else if (/^--(tmpfs|dev|proc|remount-ro|chdir)$/.test(arg)) out.push(`${arg} ${args[++i]}`);
  }
  return out;
}

Deno.test("sandboxExecProfile() denies by default and allows only what the grants name", () => {
  const profile = sandboxExecProfile(grantsOf(["--allow-read=.", "--allow-write=out"]));
  const lines = profile.trim().split("\n");
  assertEquals(lines.slice(0, 2), ["(version 1)", "(deny default)"]);
  assert(lines.some((l) => l.startsWith("(allow file-read* ") && l.includes('(subpath "/w")')));
  const write = lines.find((l) => l.startsWith("(allow file-write* "));
  assertEquals(
    write,
    '(allow file-write* (subpath "/private/tmp") (subpath "/private/var/folders") ' +
      '(subpath "/w/out") (literal "/dev/null"))',
  );
  assert(!profile.includes("network"), profile);
  assert(!profile.includes("(allow file-read*)"), "reads everything without --allow-read");
});

Deno.test("sandboxExecProfile() grants the network with --allow-net and hides denied paths", () => {
  const profile = sandboxExecProfile(
    grantsOf(["-R", "-W", "--allow-net=example.com", "--deny-read=.env", "--deny-write=.git"]),
  );
  assert(profile.includes("(allow file-read*)\n"), profile);
  assert(profile.includes("(allow file-write*)\n"), profile);
  assert(profile.includes("(allow network*)"), profile);
  // Later rules win in SBPL: the denials come after the allows.
  assert(
    profile.indexOf('(deny file-read* file-write* (subpath "/w/.env"))') >
      profile.indexOf("(allow file-read*)"),
    profile,
  );
  assert(profile.includes('(deny file-write* (subpath "/w/.git"))'), profile);
});

Deno.test("sandboxExecProfile() escapes quotes and backslashes in paths", () => {
  const profile = sandboxExecProfile(grantsOf(['--allow-write=/a"b\\c']));
  assert(profile.includes('(subpath "/a\\"b\\\\c")'), profile);
});

Deno.test("bwrapArguments() mounts system folders and grants, with no network by default", () => {
  const args = bwrapArguments(grantsOf(["--allow-read=.", "--allow-write=out"]), { cwd: "/w" });
  assertEquals(args.slice(0, 5), [
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    "--cap-drop",
    "ALL",
  ]);
  assert(!args.includes("--share-net"));
  const m = mounts(args);
  for (const system of ["/usr", "/bin", "/lib", "/etc"]) {
    assert(m.includes(`--ro-bind-try ${system} ${system}`), system);
  }
  assert(!m.includes("--ro-bind / /"), "the whole filesystem is visible");
  // Order matters: the private /tmp first, then the grants on top of it.
  assert(m.indexOf("--tmpfs /tmp") < m.indexOf("--ro-bind-try /w /w"));
  assert(m.indexOf("--ro-bind-try /w /w") < m.indexOf("--bind-try /w/out /w/out"));
  assertEquals(m.at(-1), "--chdir /w");
});

Deno.test("bwrapArguments() shares the network with --allow-net unless --deny-net", () => {
  assert(bwrapArguments(grantsOf(["-N"]), { cwd: "/w" }).includes("--share-net"));
  assert(bwrapArguments(grantsOf(["--allow-net=a.com"]), { cwd: "/w" }).includes("--share-net"));
  assert(!bwrapArguments(grantsOf(["-N", "--deny-net"]), { cwd: "/w" }).includes("--share-net"));
});

Deno.test("bwrapArguments() hides denied files and folders and keeps denied writes read-only", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(join(root, ".env"), "KEY=1");
    await Deno.mkdir(join(root, "secrets"));
    await Deno.mkdir(join(root, ".git"));
    const grants = grantsOf(
      ["-R", "--allow-write=.", "--deny-read=.env,secrets", "--deny-write=.git"],
      root,
    );
    const m = mounts(bwrapArguments(grants, { cwd: root }));
    assert(m.includes("--ro-bind / /"), m.join("\n"));
    assert(m.includes(`--ro-bind /dev/null ${root}/.env`), m.join("\n"));
    assert(m.includes(`--tmpfs ${root}/secrets`) && m.includes(`--remount-ro ${root}/secrets`));
    assert(
      m.indexOf(`--bind-try ${root} ${root}`) < m.indexOf(`--ro-bind ${root}/.git ${root}/.git`),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("commandEnvironment() keeps the base names and --allow-env, never keys or HARNESS_*", () => {
  const env = {
    PATH: "/bin",
    HOME: "/h",
    TERM: "xterm",
    HARNESS_API_KEY: "k",
    HARNESS_BASE_URL: "u",
    OPENAI_API_KEY: "o",
    ANTHROPIC_API_KEY: "a",
    GITHUB_TOKEN: "g",
    NODE_ENV: "dev",
  };
  assertEquals(commandEnvironment(grantsOf([]), env), { PATH: "/bin", HOME: "/h", TERM: "xterm" });
  assertEquals(
    Object.keys(commandEnvironment(grantsOf(["-E"]), env)).sort(),
    ["GITHUB_TOKEN", "HOME", "NODE_ENV", "PATH", "TERM"],
  );
  assertEquals(
    Object.keys(commandEnvironment(grantsOf(["-E", "--deny-env=GITHUB_TOKEN,HOME"]), env)).sort(),
    ["NODE_ENV", "PATH", "TERM"],
  );
});

Deno.test("probeCommandSandbox() says Windows has no command sandbox and off never probes", async () => {
  const grants = grantsOf([]);
  const windows = await probeCommandSandbox("auto", { grants, env: {}, os: "windows" });
  assert(windows.confinement.kind === "none");
  assert(describeCommandSandbox(windows).includes("no command sandbox on windows"));
  const off = await probeCommandSandbox("off", { grants, env: {}, bwrap: "/nonexistent" });
  assertEquals(off.confinement, { kind: "none", reason: 'command_sandbox is "off"' });
});

Deno.test("sandboxExecProfile() denies a --deny-read link and the path it leads to", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(join(dir, "vault"));
    await Deno.symlink(join(dir, "vault"), join(dir, "link"));
    const profile = sandboxExecProfile(grantsOf(["-R", "--deny-read=link"], dir));
    const deny = profile.split("\n").find((l) => l.startsWith("(deny file-read* file-write*"));
    assert(deny?.includes(`(subpath "${join(dir, "link")}")`), profile);
    assert(deny?.includes(`(subpath "${join(dir, "vault")}")`), profile);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "describeCommandSandbox() says which protections apply besides the grants",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const env = Deno.env.toObject();
    const probe = (flags: string[], writableGit = false) =>
      probeCommandSandbox("required", { grants: grantsOf(flags), env, writableGit });
    const plain = describeCommandSandbox(await probe(["--allow-write=.", "--allow-run"]));
    assert(plain.startsWith("commands: confined by bubblewrap ("), plain);
    assert(plain.includes(".git read-only (--writable-git lets commands commit)"), plain);
    assert(plain.includes(".harness, plugin and harness folders read-only"), plain);
    assert(plain.includes("only stdin, stdout and stderr inherited"), plain);
    assert(!plain.includes("Unix sockets"), plain);
    const net = describeCommandSandbox(await probe(["--allow-net", "--allow-run"], true));
    assert(net.includes(".git writable (--writable-git)"), net);
    assert(net.includes("no Unix sockets"), net);
  },
});

Deno.test("sandboxExecProfile() keeps the protected paths read-only inside the write grants", () => {
  const profile = sandboxExecProfile(grantsOf(["--allow-read=.", "--allow-write=."]), {
    readOnly: ["/w/.git", "/w/.harness"],
  });
  assert(
    profile.includes('(deny file-write* (subpath "/w/.git") (subpath "/w/.harness"))'),
    profile,
  );
});

Deno.test("bwrapArguments() pins the folders above kept paths and hides the data folder but its exception", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const w = join(root, "w");
    const data = join(root, "data");
    await Deno.mkdir(join(w, "a", "secrets"), { recursive: true });
    await Deno.writeTextFile(join(w, "a", "secrets", "key"), "k");
    await Deno.mkdir(join(w, "tools", "plugins"), { recursive: true });
    await Deno.mkdir(join(data, "outputs", "h"), { recursive: true });
    const grants = grantsOf(["-R", `--allow-write=${w}`, `--deny-read=${w}/a/secrets/key`], w);
    const m = mounts(bwrapArguments(grants, {
      cwd: w,
      readOnly: [join(w, "tools", "plugins")],
      hidden: [{ path: data, kind: "data", except: [join(data, "outputs", "h")] }],
    }));
    // Bound onto themselves, before what is mounted inside them: writable, never renamed.
    for (const pin of [join(w, "a"), join(w, "a", "secrets"), join(w, "tools")]) {
      const at = m.indexOf(`--bind ${pin} ${pin}`);
      assert(at > m.indexOf(`--bind-try ${w} ${w}`), `${pin}\n${m.join("\n")}`);
      assert(at < m.indexOf(`--ro-bind /dev/null ${w}/a/secrets/key`), m.join("\n"));
    }
    assert(!m.includes(`--bind ${w} ${w}`), "the write grant is a mount already");
    const tail = m.slice(m.indexOf(`--tmpfs ${data}`));
    assertEquals(tail, [
      `--tmpfs ${data}`,
      `--ro-bind-try ${data}/outputs/h ${data}/outputs/h`,
      `--remount-ro ${data}`,
      `--chdir ${w}`,
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
