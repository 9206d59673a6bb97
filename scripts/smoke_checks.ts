// Release smoke checks of what every build must have inside: the version, the bundle it starts
// from, a -p answer from a model server, the tree-sitter grammars (`harness index`, then find_definition in four
// languages) and the MCP SDK talking to a stdio server from tests/fixtures/mcp.

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { callTool, expect, type SmokeCheck, writeFiles } from "./smoke_check.ts";
import { PONG, SMOKE_MODEL } from "./smoke_model_server.ts";

/** The MCP stdio server the tests use; its `echo` tool answers "echo: TEXT". */
const MCP_FIXTURE = fileURLToPath(
  new URL("../tests/fixtures/mcp/misbehaving_server.ts", import.meta.url),
);

/** A small tree in four languages, and one definition to find in each. */
const CODE_TREE: Record<string, string> = {
  "src/billing.py":
    "class Invoice:\n    def total(self):\n        return compute_total(self)\n\n\ndef compute_total(invoice):\n    return 0\n",
  "src/main.go": "package main\n\nfunc main() { Run() }\n\nfunc Run() {}\n",
  "src/app.ts": "export function startApp(port: number): string {\n  return `:${port}`;\n}\n",
  "src/config.rs":
    "pub struct Config {}\n\npub fn parse_config(text: &str) -> Config {\n  Config {}\n}\n",
};
const DEFINITIONS: [name: string, where: string][] = [
  ["compute_total", "src/billing.py:6"],
  ["Run", "src/main.go:5"],
  ["startApp", "src/app.ts:1"],
  ["parse_config", "src/config.rs:3"],
];

/** The smoke checks of the version, -p, the code graph and MCP, in order. */
export const CORE_CHECKS: readonly SmokeCheck[] = [
  {
    name: "--version",
    async run(ctx) {
      const run = await ctx.harness.run(await ctx.folder(), ["--version"]);
      expect(run.code === 0 && /^harness \d+\.\d+\.\d+/.test(run.stdout), "no version", run);
      return run.stdout.trim();
    },
  },
  {
    // A binary runs the bundle it embeds (deno task compile); a checkout runs its bundle once
    // one is built, and its source until then.
    name: "start-up path (the bundle)",
    async run(ctx) {
      const run = await ctx.harness.run(
        await ctx.folder(),
        ["tool", "get_working_directory", "{}"],
        {
          env: { HARNESS_TRACE_STARTUP: "1" },
        },
      );
      expect(run.code === 0, "harness tool failed", run);
      const bundled = /^startup .* bundle checked$/m.test(run.stderr);
      expect(bundled || ctx.harness.binary === undefined, "the binary ran from source", run);
      return bundled ? "ran from the bundle" : "ran from source (no fresh bundle in the checkout)";
    },
  },
  {
    name: "-p answers from the loopback model server",
    async run(ctx) {
      const folder = await ctx.folder();
      const run = await ctx.harness.run(folder, [
        "-p",
        "hello",
        "--base-url",
        ctx.server.baseUrl,
        "--model",
        SMOKE_MODEL,
      ]);
      expect(run.code === 0 && run.stdout.trim() === PONG, `-p did not print "${PONG}"`, run);
      return `printed "${PONG}"`;
    },
  },
  {
    name: "harness index and find_definition in Python, Go, TypeScript and Rust (grammars)",
    async run(ctx) {
      const folder = await ctx.folder();
      await writeFiles(folder.cwd, CODE_TREE);
      const indexed = await ctx.harness.run(folder, ["index", "--allow-read=."]);
      expect(indexed.code === 0, "harness index failed", indexed);
      const counts = /Indexed 4 files .*\(4 parsed, 0 removed, 0 skipped\)/.test(indexed.stdout);
      expect(counts, "harness index did not parse the 4 files", indexed);
      for (const [name, where] of DEFINITIONS) {
        const run = await ctx.harness.run(folder, [
          "tool",
          "find_definition",
          JSON.stringify({ name }),
          "--allow-read=.",
        ]);
        expect(run.code === 0, `harness tool find_definition ${name} failed`, run);
        const data = String(JSON.parse(run.stdout).data).replaceAll("\\", "/");
        expect(data.includes(where), `find_definition ${name} did not find ${where}`, run);
      }
      return indexed.stdout.trim();
    },
  },
  {
    name: "MCP stdio server (tests/fixtures/mcp) called through -p",
    async run(ctx) {
      const folder = await ctx.folder();
      const deno = Deno.execPath();
      // A stdio server runs in the command sandbox: it may read Deno, the fixture and its folder.
      const server = {
        command: deno,
        args: ["run", "-A", "--no-prompt", MCP_FIXTURE],
        sandbox: { read: [dirname(deno), dirname(MCP_FIXTURE), "."] },
      };
      await writeFiles(folder.home, {
        ".config/harness/config.jsonc": JSON.stringify({ mcp_servers: { smoke: server } }),
      });
      const output = await callTool(ctx, folder, "smoke__echo", { text: "over stdio" }, {
        args: [`--allow-run=${deno}`],
      });
      expect(output === "echo: over stdio", `smoke__echo returned ${JSON.stringify(output)}`);
      return `smoke__echo -> ${JSON.stringify(output)}`;
    },
  },
];
