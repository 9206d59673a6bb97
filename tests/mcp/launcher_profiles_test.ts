// The launchers' profiles (npx, uvx, bunx, docker): what each needs in a server's command
// sandbox, moved by their own flags and variables, offline when their flags say so, and not
// asked about when the flags already grant it all.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import {
  launcherOf,
  launcherProfile,
  profileCovered,
  profileSandbox,
} from "../../src/mcp/launcher_profiles.ts";
import { pendingProfile } from "../../src/mcp/profile_approval.ts";
import { serverGrants } from "../../src/mcp/server_grants.ts";
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";
import { commandRules } from "../../src/sandbox/commands/command_sandbox_rules.ts";

const HOME = "/home/u";

function sandboxOf(command: string, args: string[], env: Record<string, string> = {}) {
  const profile = launcherProfile({ command, args }, { env, home: HOME });
  assert(profile, command);
  return profileSandbox(profile, HOME);
}

Deno.test("launcherOf knows npx, uvx, bunx and docker by their file name", () => {
  assertEquals(launcherOf("/usr/local/bin/npx"), "npx");
  assertEquals(launcherOf("C:\\Program Files\\nodejs\\npx.cmd"), "npx");
  assertEquals(launcherOf("uvx"), "uvx");
  assertEquals(launcherOf("bunx"), "bunx");
  assertEquals(launcherOf("docker"), "docker");
  assertEquals(launcherOf("node"), undefined);
  assertEquals(launcherOf("npx-wrapper"), undefined);
});

Deno.test("npx: its cache and settings, the registry's network unless --offline", () => {
  assertEquals(sandboxOf("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/x"]), {
    read: ["~/.npm", "~/.npmrc"],
    write: ["~/.npm"],
    net: ["registry.npmjs.org"],
  });
  // A flag of the server (after the package) is not npx's own.
  assertEquals(sandboxOf("npx", ["--offline", "pkg"]).net, undefined);
  assertEquals(sandboxOf("npx", ["pkg", "--offline"]).net, ["registry.npmjs.org"]);
  // The registry and cache that npm's variables and flags set.
  const moved = sandboxOf("npx", ["--registry", "https://npm.corp.example/", "pkg"], {
    npm_config_cache: "/var/cache/npm",
  });
  assertEquals(moved.net, ["npm.corp.example"]);
  assertEquals(moved.write, ["/var/cache/npm"]);
  assertEquals(moved.env, ["npm_config_cache"]);
});

Deno.test("npx reads the registry from the user's .npmrc", async () => {
  const home = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(home, ".npmrc"), "fund=false\nregistry=https://r.example/npm/\n");
    const profile = launcherProfile({ command: "npx", args: ["pkg"] }, { env: {}, home });
    assertEquals(profileSandbox(profile!, home).net, ["r.example"]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("uvx: uv's cache, data and settings, PyPI unless --offline, its index when set", () => {
  assertEquals(sandboxOf("uvx", ["mcp-server-fetch"]), {
    read: ["~/.cache/uv", "~/.local/share/uv", "~/.config/uv"],
    write: ["~/.cache/uv", "~/.local/share/uv"],
    net: ["pypi.org", "files.pythonhosted.org"],
  });
  assertEquals(sandboxOf("uvx", ["--offline", "mcp-server-fetch"]).net, undefined);
  assertEquals(sandboxOf("uvx", ["--from", "git+x", "--offline", "tool"]).net, undefined);
  const moved = sandboxOf("uvx", ["tool"], {
    UV_CACHE_DIR: "/c/uv",
    UV_INDEX_URL: "https://pypi.corp.example/simple",
  });
  assertEquals(moved.write, ["/c/uv", "~/.local/share/uv"]);
  assertEquals(moved.net, ["pypi.corp.example"]);
  assertEquals(moved.env, ["UV_CACHE_DIR", "UV_INDEX_URL"]);
});

Deno.test("bunx: bun's cache, the registry unless --no-install", () => {
  const sandbox = sandboxOf("bunx", ["pkg"]);
  assertEquals(sandbox.write, ["~/.bun/install/cache"]);
  assertEquals(sandbox.net, ["registry.npmjs.org"]);
  assertEquals(sandboxOf("bunx", ["--no-install", "pkg"]).net, undefined);
});

Deno.test("docker: its socket and settings, and no network even when the flags grant it", () => {
  const sandbox = sandboxOf("docker", ["run", "-i", "--rm", "mcp/fetch"]);
  assertEquals(sandbox.write, ["/var/run/docker.sock"]);
  assertEquals(sandbox.read, ["/var/run/docker.sock", "~/.docker"]);
  assertEquals(sandbox.net, false);
  // The daemon downloads; a shared network would bring the filter that refuses Unix sockets.
  const grants = emptyGrants();
  grants.allow.net = true;
  const server = serverGrants(grants, { command: "docker", sandbox }, { cwd: "/w", home: HOME });
  assertEquals(commandRules(server).net, false);
  const remote = sandboxOf("docker", ["run", "x"], { DOCKER_HOST: "tcp://10.0.0.5:2376" });
  assertEquals(remote.net, ["10.0.0.5"]);
  assertEquals(remote.env, ["DOCKER_HOST"]);
});

Deno.test("a profile's hosts share the network unless --deny-net names them", () => {
  const sandbox = { net: ["registry.npmjs.org"] };
  const open = serverGrants(emptyGrants(), { command: "npx", sandbox }, { cwd: "/w", home: HOME });
  assertEquals(commandRules(open).net, true);
  const denied = emptyGrants();
  denied.deny.net = ["registry.npmjs.org"];
  const shut = serverGrants(denied, { command: "npx", sandbox }, { cwd: "/w", home: HOME });
  assertEquals(commandRules(shut).net, false);
});

Deno.test("nothing is asked when the flags already cover the profile or the entry has a sandbox", () => {
  const env = { HOME };
  const entry = { command: "npx", args: ["-y", "pkg"] };
  assert(pendingProfile(entry, { grants: emptyGrants(), env, cwd: "/w" }));
  const all = emptyGrants();
  all.allow.read = true;
  all.allow.write = true;
  all.allow.net = true;
  assertEquals(pendingProfile(entry, { grants: all, env, cwd: "/w" }), undefined);
  const some = emptyGrants();
  some.allow.write = [`${HOME}/.npm`];
  some.allow.read = [`${HOME}/.npmrc`, `${HOME}/.npm`];
  some.allow.net = ["registry.npmjs.org"];
  assert(profileCovered(launcherProfile(entry, { env, home: HOME })!, some));
  const handWritten = { ...entry, sandbox: { net: true } };
  assertEquals(pendingProfile(handWritten, { grants: emptyGrants(), env, cwd: "/w" }), undefined);
});
