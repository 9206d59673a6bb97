// Tests of the `harness acp` command line: parsing, help text and usage errors.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { parseCommand } from "../../src/cli/args.ts";
import { HELP } from "../../src/cli/help_text.ts";

Deno.test("parseCommand() reads acp with run flags and refuses extra arguments", () => {
  const parsed = parseCommand(["acp", "--yes", "--model", "m"]);
  assert(parsed.ok && parsed.value.kind === "acp");
  assertEquals([parsed.value.flags.yes, parsed.value.flags.model], [true, "m"]);
  const extra = parseCommand(["acp", "now"]);
  assert(!extra.ok && extra.error.kind === "usage");
  match(extra.error.message, /Unexpected argument "now" for "harness acp"/);
});

Deno.test("HELP lists harness acp", () => {
  match(HELP, /harness acp \[flags\] \[Deno permission flags\]/);
});
