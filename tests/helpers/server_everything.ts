// Test fixture step: the reference MCP server `@modelcontextprotocol/server-everything`,
// installed from the npm registry with npm into a folder outside any workspace, as a user
// installs a server that another client's config names. One install serves every test file
// of a run and later runs (a folder in the system's temp folder, named after the version,
// written under a file lock and marked complete last).

import { join } from "node:path";
import { tmpdir } from "node:os";

/** The version the tests install (npx entries name it too, so npm's cache serves both). */
export const EVERYTHING_PACKAGE = "@modelcontextprotocol/server-everything@2026.8.31";

let installed: Promise<string> | undefined;

/** Whether `npm` and `npx` are on PATH (the tests that need them are ignored otherwise). */
export const HAS_NPM: boolean = (() => {
  try {
    return new Deno.Command("npm", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();

/**
 * Installs the server once (npm's cache makes it fast) and returns its entry point,
 * `.../node_modules/@modelcontextprotocol/server-everything/dist/index.js`.
 */
export function serverEverything(): Promise<string> {
  const version = EVERYTHING_PACKAGE.split("@").at(-1);
  installed ??= installOnce(join(tmpdir(), `harness_test_mcp_server_everything_${version}`));
  return installed;
}

/** Installs into `folder` unless an install there is complete; other test files wait. */
async function installOnce(folder: string): Promise<string> {
  const entry = join(folder, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  const done = join(folder, "installed");
  await Deno.mkdir(folder, { recursive: true });
  using lock = await Deno.open(`${folder}.lock`, { create: true, write: true });
  await lock.lock(true);
  try {
    if (await Deno.stat(done).then(() => true, () => false)) return entry;
    // A run stopped mid-install left a partial folder: start afresh.
    await Deno.remove(join(folder, "node_modules"), { recursive: true }).catch(() => {});
    const out = await new Deno.Command("npm", {
      args: [
        "install",
        "--prefix",
        folder,
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--no-package-lock",
        EVERYTHING_PACKAGE,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`npm install failed: ${new TextDecoder().decode(out.stderr)}`);
    }
    await Deno.writeTextFile(done, `${EVERYTHING_PACKAGE}\n`);
    return entry;
  } finally {
    await lock.unlock();
  }
}
