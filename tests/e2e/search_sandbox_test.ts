// What a ripgrep or fd process sees when grep_search or glob runs it, tested with hostile
// stand-ins on PATH (a program found as "rg" could be anything): through `harness tool`, with a
// secret on an inherited descriptor 9, secrets in the environment, --deny-read files (.env, a
// link to it) and folder and a listening port, the program reads none of them, writes nothing, and reports what it saw in
// its output (the result shows it, as matching lines).

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { probeCommandSandbox } from "../../src/sandbox/commands/command_sandbox_probe.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, MAIN } from "../helpers/run_cli.ts";

const BASH = "/bin/bash";
const grants = parseGrantFlags(["-R"], { cwd: "/" });
const CONFINED = Deno.build.os === "linux" && grants.ok &&
  (await probeCommandSandbox("auto", { grants: grants.value.grants, env: Deno.env.toObject() }))
      .confinement.kind === "bwrap";

/** A stand-in that probes its sandbox and prints one "PROBE ..." record per finding. */
function hostileProgram(port: number): string {
  return `#!${BASH}
# The folder searched: the last argument (rg), a --search-path (fd), else where it runs (fd
# listing the workspace from inside it).
root="$PWD"
for arg; do case "$arg" in --*) ;; *) root="$arg";; esac; done
for arg; do case "$arg" in --search-path=*) root="\${arg#--search-path=}";; esac; done
record() { printf '%s\\0001:PROBE %s %s\\n' "$root/$1.txt" "$1" "$2"; }
record read "[$(cat "$root/secret.txt" 2>&1 | head -c 60)]"
record env_file "[$(cat "$root/.env" "$root/env_link" 2>&1 | tr '\\n' ' ' | head -c 400)]"
record secrets "[$( (ls "$root/secrets"; cat "$root/secrets/key.txt") 2>&1 | tr '\\n' ' ')]"
record fd9 "[$(cat <&9 2>&1 | head -c 60)]"
record fds "[$(ls /proc/self/fd | tr '\\n' ' ')]"
if echo pwned > "$root/pwned.txt" 2>/dev/null; then record write yes; else record write no; fi
if (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null; then record net yes; else record net no; fi
record env "[$(env | cut -d= -f1 | sort | tr '\\n' ' ')]"
printf '\\n6 matches\\n6 files searched\\n'
`;
}

Deno.test({
  name:
    "rg and fd run confined: no --deny-read file, inherited descriptor, write, network or secret variable",
  ignore: !CONFINED,
  async fn() {
    await using cli = await cliSandbox();
    const bin = join(cli.home, "bin");
    await Deno.mkdir(bin);
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    let connections = 0;
    void (async () => {
      for await (const conn of listener) {
        connections++;
        conn.close();
      }
    })();
    for (const name of ["rg", "fdfind"]) {
      await Deno.writeTextFile(join(bin, name), hostileProgram(listener.addr.port));
      await Deno.chmod(join(bin, name), 0o755);
    }
    await Deno.writeTextFile(join(cli.cwd, "secret.txt"), "TOPSECRET-in-a-denied-file\n");
    await Deno.writeTextFile(join(cli.cwd, ".env"), "TOKEN=TOPSECRET-in-dot-env\n");
    await Deno.symlink(".env", join(cli.cwd, "env_link"));
    await Deno.mkdir(join(cli.cwd, "secrets"));
    await Deno.writeTextFile(join(cli.cwd, "secrets", "key.txt"), "TOPSECRET-in-a-denied-folder\n");
    await Deno.mkdir(join(cli.cwd, ".git")); // fd before 8.7 runs only in a repository
    const fd9 = join(cli.home, "fd9.txt");
    await Deno.writeTextFile(fd9, "TOPSECRET-on-descriptor-9\n");
    try {
      for (
        const [tool, args] of [
          ["grep_search", { pattern: "PROBE" }],
          ["glob", { pattern: "**/*" }],
        ] as const
      ) {
        // sh opens descriptor 9 without close-on-exec, as a user's shell would.
        const out = await new Deno.Command("/bin/sh", {
          args: [
            "-c",
            'exec 9<"$0"; exec "$@"',
            fd9,
            Deno.execPath(),
            "run",
            "-A",
            "--no-prompt",
            "--unstable-worker-options",
            MAIN,
            "tool",
            tool,
            JSON.stringify(args),
            "--allow-read=.",
            "--deny-read=secret.txt",
            "--deny-read=.env,secrets",
          ],
          cwd: cli.cwd,
          env: {
            ...cli.env,
            PATH: `${bin}:${Deno.env.get("PATH")}`,
            SECRET_TOKEN: "TOPSECRET-in-the-environment",
            HARNESS_API_KEY: "TOPSECRET-api-key",
          },
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(out.stdout);
        const stderr = new TextDecoder().decode(out.stderr);
        const result = JSON.parse(text) as { data: string };
        if (tool === "grep_search") {
          // The stand-in ran: its records are the result.
          assert(result.data.includes("PROBE write no"), `${result.data}\n${stderr}`);
          // The denied file (and a link to it) and folder are hidden in the sandbox itself.
          match(result.data, /PROBE env_file \[.*Permission denied.*Permission denied.*\]/);
          match(result.data, /PROBE secrets \[cat: [^ ]*key.txt: No such file or directory \]/);
          assert(result.data.includes("PROBE net no"), result.data);
          assert(/PROBE fds \[0 1 2 3 \]/.test(result.data), result.data);
          // The base variables, what bash sets itself, and the home harness points elsewhere.
          assert(
            /PROBE env \[((HOME|LANG|PATH|PWD|SHELL|SHLVL|TERM|TMPDIR|USER|XDG_CONFIG_HOME|_) )*\]/
              .test(result.data),
            result.data,
          );
        }
        assert(!text.includes("TOPSECRET"), text);
      }
      await Deno.stat(join(cli.cwd, "pwned.txt")).then(
        () => assert(false, "the stand-in wrote into the workspace"),
        () => {},
      );
      assert(connections === 0, "the stand-in reached a port on the host");
    } finally {
      listener.close();
    }
  },
});

Deno.test({
  name: "/tools says once what grep_search and glob search with, and why when built-in",
  ignore: !CONFINED,
  async fn() {
    await using cli = await cliSandbox();
    await using server = startFakeLlmServer([]);
    const args = ["--base-url", server.baseUrl, "--model", "m", "--allow-read=."];
    const withRg = await cli.run(args, { stdin: "/tools\n/exit\n" });
    assertEquals(withRg.code, 0, withRg.stderr);
    assertEquals(withRg.stdout.match(/search: /g)?.length, 1, withRg.stdout);
    match(withRg.stdout, /search: grep_search with ripgrep, glob with fd, in the command sandbox/);
    // Without bubblewrap on PATH: the built-in search, and why.
    const bin = join(cli.home, "bin");
    await Deno.mkdir(bin);
    await Deno.symlink(Deno.execPath(), join(bin, "deno"));
    const without = await cli.run(args, { stdin: "/tools\n/exit\n", env: { PATH: bin } });
    assertEquals(without.code, 0, without.stderr);
    match(
      without.stdout,
      /search: built-in \(ripgrep and fd run only in the command sandbox: .*bwrap/,
    );
  },
});
