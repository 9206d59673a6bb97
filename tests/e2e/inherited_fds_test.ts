// Commands start with only stdin, stdout and stderr (issue 26, item 9): a descriptor harness
// inherited from the shell that started it (`9<secret`, `7>file`) must not reach a command,
// confined or not. Runs the real CLI with those descriptors open.

import { ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { cliSandbox, RUN_MAIN } from "../helpers/run_cli.ts";

const unix = Deno.build.os !== "windows";

for (const mode of ["required", "off"] as const) {
  Deno.test({
    name: `harness tool run_command cannot read or write descriptors harness inherited (${mode})`,
    ignore: !unix || (mode === "required" && Deno.build.os !== "linux"),
    async fn() {
      await using sandbox = await cliSandbox();
      const outside = await Deno.makeTempDir();
      try {
        const secret = join(outside, "secret.txt");
        const target = join(outside, "written.txt");
        await Deno.writeTextFile(secret, "fd-secret\n");
        await Deno.writeTextFile(target, "");
        const args = [
          ...RUN_MAIN,
          "tool",
          "run_command",
          JSON.stringify({ command: "cat <&9; echo pwned >&7; ls /proc/self/fd" }),
          "--allow-run",
          "--allow-read=.",
          `--command-sandbox=${mode}`,
        ];
        // The shell opens 9 for reading and 7 for writing, then becomes harness.
        const out = await new Deno.Command("sh", {
          args: [
            "-c",
            'exec 9<"$1" 7>>"$2"; shift 2; exec "$@"',
            "sh",
            secret,
            target,
            Deno.execPath(),
            ...args,
          ],
          cwd: sandbox.cwd,
          env: sandbox.env,
          stdout: "piped",
          stderr: "piped",
        }).output();
        const stdout = new TextDecoder().decode(out.stdout);
        const data = String(JSON.parse(stdout).data);
        assert(data.includes("exit_code"), stdout);
        assert(!data.includes("fd-secret"), data);
        assert(data.includes("Bad file descriptor"), data);
        assert(await Deno.readTextFile(target) === "", "the command wrote through fd 7");
      } finally {
        await Deno.remove(outside, { recursive: true });
      }
    },
  });
}
