// Test fixture step: the reference MCP server `@modelcontextprotocol/server-everything`,
// installed from the npm registry with npm into a temp folder outside any workspace (once per
// test process), as a user installs a server that another client's config names.

import { join } from "node:path";

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
 * Installs the server (npm's cache makes later runs fast) and returns its entry point,
 * `.../node_modules/@modelcontextprotocol/server-everything/dist/index.js`.
 */
export function serverEverything(): Promise<string> {
  installed ??= (async () => {
    const prefix = await Deno.makeTempDir({ prefix: "harness_mcp_everything_" });
    const out = await new Deno.Command("npm", {
      args: [
        "install",
        "--prefix",
        prefix,
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
    globalThis.addEventListener("unload", () => {
      try {
        Deno.removeSync(prefix, { recursive: true });
      } catch {
        // already gone
      }
    });
    return join(prefix, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  })();
  return installed;
}
