// Test helper: what a command sandbox must let `deno run` read, so tests can start Deno
// programs confined (the MCP fixture and reference servers): the deno executable's folder,
// the Deno cache and this repository. Passed as an MCP entry's `sandbox.read`.

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

function denoDir(): string {
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return fromEnv;
  const out = new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .outputSync();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
}

/** Folders `deno run` of a file in this repository reads. */
export const DENO_READ: string[] = [
  dirname(Deno.execPath()),
  denoDir(),
  fileURLToPath(new URL("../../", import.meta.url)),
];
