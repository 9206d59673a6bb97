import { deepStrictEqual as assertEquals, equal } from "node:assert/strict";
import { type Command, parseCommand } from "../../src/cli/args.ts";
import type { RunFlags } from "../../src/app/run_flags.ts";

const RUN_DEFAULTS: RunFlags = {
  yes: false,
  plugins: [],
  continue: false,
  noSession: false,
  outputFormat: "text",
};

const PARSED: [string[], Command][] = [
  [[], { kind: "run", flags: { ...RUN_DEFAULTS } }],
  [["-h"], { kind: "help" }],
  [["--model", "m", "--version"], { kind: "version" }],
  [
    ["-p", "fix it", "--output-format=json", "-y", "--max-iterations", "3"],
    {
      kind: "run",
      flags: {
        ...RUN_DEFAULTS,
        prompt: "fix it",
        outputFormat: "json",
        yes: true,
        maxIterations: 3,
      },
    },
  ],
  [
    ["--command-sandbox", "required"],
    { kind: "run", flags: { ...RUN_DEFAULTS, commandSandbox: "required" } },
  ],
  [["--writable-git"], { kind: "run", flags: { ...RUN_DEFAULTS, writableGit: true } }],
  [
    ["--base-url", "http://h:1/v1//", "--plugins", "a", "--plugins", "b", "--no-text-tool-calls"],
    {
      kind: "run",
      flags: {
        ...RUN_DEFAULTS,
        baseUrl: "http://h:1/v1",
        plugins: ["a", "b"],
        textToolCalls: false,
      },
    },
  ],
  [["--text-tool-calls", "off"], { kind: "run", flags: { ...RUN_DEFAULTS, textToolCalls: false } }],
  [["--text-tool-calls=auto"], { kind: "run", flags: { ...RUN_DEFAULTS, textToolCalls: true } }],
  [["--resume"], { kind: "run", flags: { ...RUN_DEFAULTS, resume: true } }],
  [["--resume", "-y"], { kind: "run", flags: { ...RUN_DEFAULTS, resume: true, yes: true } }],
  [["--resume", "abc"], { kind: "run", flags: { ...RUN_DEFAULTS, resume: "abc" } }],
  [["-p", "-"], { kind: "run", flags: { ...RUN_DEFAULTS, prompt: "-" } }],
  [
    ["tool", "-y", "ls", '{"path": "."}'],
    { kind: "tool", flags: { ...RUN_DEFAULTS, yes: true }, name: "ls", json: '{"path": "."}' },
  ],
  [
    ["sessions", "search", "needle", "--yes"],
    { kind: "sessions", flags: { ...RUN_DEFAULTS, yes: true }, action: "search", arg: "needle" },
  ],
  [["sessions"], { kind: "sessions", flags: { ...RUN_DEFAULTS }, action: "list" }],
  [
    ["sessions", "delete", "e1dd"],
    { kind: "sessions", flags: { ...RUN_DEFAULTS }, action: "delete", arg: "e1dd" },
  ],
];

for (const [argv, expected] of PARSED) {
  Deno.test(`parseCommand reads ${JSON.stringify(argv)}`, () => {
    const result = parseCommand(argv);
    if (!result.ok) throw new Error(result.error.kind);
    assertEquals(result.value, expected);
  });
}

const REFUSED: [string[], string][] = [
  [["--bogus"], 'Unknown flag "--bogus": run "harness --help" for the list of flags'],
  [["--model"], 'Missing value for --model: run "harness --help" for usage'],
  [
    ["-p", "-x"],
    'Missing value for --print: to pass a value that starts with "-", write --print=-x',
  ],
  [["--yes=no"], "Invalid use of --yes: it takes no value"],
  [
    ["--max-iterations", "0"],
    'Invalid value for --max-iterations "0": expected a positive whole number',
  ],
  [
    ["--output-format", "xml", "-p", "x"],
    'Invalid value for --output-format "xml": expected one of text, json, stream-json',
  ],
  [
    ["--output-format", "json"],
    '--output-format needs -p: run "harness -p PROMPT --output-format json"',
  ],
  [
    ["--base-url", "localhost:1"],
    'Invalid value for --base-url "localhost:1": expected an http:// or https:// URL',
  ],
  [
    ["--base-url", "http://[::1"],
    'Invalid value for --base-url "http://[::1": not a valid URL: check the host, the brackets around an IPv6 address and the port',
  ],
  [
    ["--base-url", "http://user:pw@h:1/v1"],
    'Invalid value for --base-url "http://user:pw@h:1/v1": a URL with a user name or password: pass the key with --api-key instead',
  ],
  [
    ["--text-tool-calls", "glm"],
    'Invalid value for --text-tool-calls "glm": expected one of auto, off',
  ],
  [["--resume", "a", "-c"], "Use either --resume or --continue, not both"],
  [
    ["--command-sandbox=none"],
    'Invalid value for --command-sandbox "none": expected one of auto, required, off',
  ],
  [
    ["-p", "fix", "the", "tests"],
    'Unexpected argument "the": quote the whole prompt, e.g. -p "fix the tests"',
  ],
  [
    ["hello"],
    'Unknown command "hello": to send a prompt use -p "hello"; run "harness --help" for usage',
  ],
  [
    ["sessions", "export"],
    'Missing session id for "harness sessions export": run "harness sessions" to list them',
  ],
  [
    ["sessions", "delete"],
    'Missing session id for "harness sessions delete": run "harness sessions" to list them',
  ],
  [
    ["sessions", "search"],
    'Missing search text for "harness sessions search": run "harness sessions search TEXT"',
  ],
  [
    ["sessions", "export", ""],
    'Missing session id for "harness sessions export": run "harness sessions" to list them',
  ],
  [
    ["sessions", "bogus"],
    'Unknown sessions command "bogus": use list, export ID, search TEXT, delete ID or import FILE|DIR',
  ],
  [["sessions", "list", "x"], 'Unexpected argument "x" for "harness sessions list"'],
  [["-p", ""], 'Empty value for --print: give the prompt text, or "-" to read it from stdin'],
  [["--print="], 'Empty value for --print: give the prompt text, or "-" to read it from stdin'],
  [
    ["--model", ""],
    "Empty value for --model: give a model name, or leave the flag out to use the only model the server lists",
  ],
  [
    ["--base-url="],
    "Empty value for --base-url: give an http:// or https:// URL, e.g. --base-url=http://127.0.0.1:11434/v1",
  ],
  [
    ["--api-key", ""],
    "Empty value for --api-key: give the key, or leave the flag out to use $HARNESS_API_KEY or $OPENAI_API_KEY",
  ],
  [["--policies", ""], "Empty value for --policies: give the path of a policy file"],
  [
    ["--plugins", "a", "--plugins", ""],
    "Empty value for --plugins: give the path of a plugin folder",
  ],
  [["--model-file="], "Empty value for --model-file: give the path of a GGUF model file"],
];

for (const [argv, message] of REFUSED) {
  Deno.test(`parseCommand refuses ${JSON.stringify(argv)}`, () => {
    const result = parseCommand(argv);
    if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.value)}`);
    equal(result.error.kind, "usage");
    equal((result.error as { message: string }).message, message);
  });
}

Deno.test("parseCommand() reads harness stats with --since and --json, and refuses them elsewhere", () => {
  const stats = parseCommand(["stats", "--since", "7d", "--json"]);
  assertEquals(stats.ok && stats.value, {
    kind: "stats",
    flags: RUN_DEFAULTS,
    since: "7d",
    json: true,
  });
  const plain = parseCommand(["stats"]);
  assertEquals(plain.ok && plain.value, { kind: "stats", flags: RUN_DEFAULTS, json: false });
  const limited = parseCommand(["stats", "--limit", "3"]);
  equal(limited.ok, false);
  const elsewhere = parseCommand(["-p", "hi", "--since", "7d"]);
  equal(
    !elsewhere.ok && elsewhere.error.kind === "usage" && elsewhere.error.message,
    '--since applies only to "harness stats": leave it out here',
  );
});
