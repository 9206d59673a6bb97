// Test helper: what a command sandbox must let `deno run` read, so tests can start Deno
// programs confined (the MCP fixture and reference servers): the deno executable's folder,
// the Deno cache and this repository. Passed as an MCP entry's `sandbox.read`.

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { currentDenoDir } from "./run_cli.ts";

/** Folders `deno run` of a file in this repository reads. */
export const DENO_READ: string[] = [
  dirname(Deno.execPath()),
  await currentDenoDir(),
  fileURLToPath(new URL("../../", import.meta.url)),
];
