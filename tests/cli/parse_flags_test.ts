import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { parseArgs } from "node:util";
import { type FlagSpec, parseFlags } from "../../src/cli/parse_flags.ts";

const SPECS = {
  print: { type: "string", short: "p" },
  model: { type: "string" },
  plugins: { type: "string", multiple: true },
  yes: { type: "boolean", short: "y" },
  continue: { type: "boolean", short: "c" },
  "no-session": { type: "boolean" },
} as const satisfies Record<string, FlagSpec>;

// Inputs both parsers accept: ours must read them exactly as node:util parseArgs does.
const ACCEPTED: string[][] = [
  [],
  ["-p", "hi"],
  ["-phi"],
  ["-p=hi"],
  ["--print", "hello world"],
  ["--print=--literal"],
  ["--print="],
  ["-p", ""],
  ["-p", "-"],
  ["-yc"],
  ["-ycp", "x"],
  ["-ycpx"],
  ["--yes", "--no-session", "--model", "m"],
  ["--model", "a", "--model", "b"],
  ["--plugins", "a", "--plugins=b", "--plugins", "c"],
  ["tool", "ls", "{}", "-y"],
  ["-", "x"],
  ["--", "-p", "--bogus"],
  ["-y", "--", "--"],
  ["sessions", "--yes", "search", "needle"],
];

for (const argv of ACCEPTED) {
  Deno.test(`parseFlags reads ${JSON.stringify(argv)} as node:util parseArgs does`, () => {
    const ours = parseFlags(argv, SPECS);
    const node = parseArgs({ args: argv, options: SPECS, strict: true, allowPositionals: true });
    if (!ours.ok) throw new Error(ours.error.message);
    assertEquals(ours.value.values, { ...node.values });
    assertEquals(ours.value.positionals, node.positionals);
  });
}

// Inputs both refuse: ours says which flag and what to do.
const REFUSED: [string[], RegExp][] = [
  [["--bogus"], /^Unknown flag "--bogus": run "harness --help" for the list of flags$/],
  [["--bogus=1"], /^Unknown flag "--bogus": /],
  [["-x"], /^Unknown flag "-x": /],
  [["-yx"], /^Unknown flag "-x": /],
  [["--toString"], /^Unknown flag "--toString": /],
  [["--model"], /^Missing value for --model: run "harness --help" for usage$/],
  [["-p"], /^Missing value for --print: run "harness --help" for usage$/],
  [["-yp"], /^Missing value for --print: /],
  [["--print", "--"], /^Missing value for --print: /],
  [
    ["--print", "-v"],
    /^Missing value for --print: to pass a value that starts with "-", write --print=-v$/,
  ],
  [["-p", "--yes"], /^Missing value for --print: .* write --print=--yes$/],
  [["--yes=1"], /^Invalid use of --yes: it takes no value$/],
  [["--no-session="], /^Invalid use of --no-session: it takes no value$/],
];

for (const [argv, message] of REFUSED) {
  Deno.test(`parseFlags refuses ${JSON.stringify(argv)} with a one-line message`, () => {
    const ours = parseFlags(argv, SPECS);
    if (ours.ok) throw new Error(`accepted: ${JSON.stringify(ours.value)}`);
    match(ours.error.message, message);
    let nodeRefused = false;
    try {
      parseArgs({ args: argv, options: SPECS, strict: true, allowPositionals: true });
    } catch {
      nodeRefused = true;
    }
    assertEquals(nodeRefused, true, "node:util parseArgs accepts this input");
  });
}
