import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/get_current_time.ts";
import { makeToolContext, runTool } from "../helpers/tool_context.ts";

Deno.test("get_current_time returns local ISO 8601 with the offset", async () => {
  await using ctx = await makeToolContext();
  const { output } = await runTool(tool, {}, ctx);
  const match = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d([+-])(\d\d):(\d\d)$/.exec(output);
  assert(match, output);
  const offset = (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
  assertEquals(offset, 0 - new Date().getTimezoneOffset());
  assert(Math.abs(Date.parse(output) - Date.now()) < 5000, output);
});

Deno.test("get_current_time uses the local time zone", async () => {
  const source = `import tool from "${new URL(
    "../../plugins/get_current_time.ts",
    import.meta.url,
  )}";
console.log((await tool.run({}, {} as never)).output);`;
  const { stdout, success } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", source],
    env: { TZ: "Asia/Kolkata" },
  }).output();
  assert(success);
  const output = new TextDecoder().decode(stdout).trim();
  assert(output.endsWith("+05:30"), output);
  assert(Math.abs(Date.parse(output) - Date.now()) < 10000, output);
});
