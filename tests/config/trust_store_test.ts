// The trust store (src/config/trust_store.ts): one record per real path, read from the
// stores of earlier versions (keyed by hash) when it does not exist yet, and never trusting on
// a damaged file.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import {
  readTrustStore,
  recordTrust,
  trustState,
  writeTrustStore,
} from "../../src/config/trust_store.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const quiet = { write: () => {} };

Deno.test("readTrustStore() carries decisions of the stores keyed by hash over by path", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(
    join(dir.path, "trusted_plugins.json"),
    JSON.stringify({
      version: 1,
      plugins: {
        aaa: { path: "/p/plugins/x.ts", trusted: true, decided_at: "2026-01-01T00:00:00Z" },
        bbb: { path: "/p/plugins/x.ts", trusted: true, decided_at: "2026-02-01T00:00:00Z" },
        ccc: { path: "/p/.harness/policies.jsonc", trusted: false, decided_at: "2026-01-01" },
      },
    }),
  );
  await Deno.writeTextFile(
    join(dir.path, "trusted_configs.json"),
    JSON.stringify({
      version: 1,
      configs: { ddd: { path: "/p/.harness/config.jsonc", trusted: true, decided_at: "x" } },
    }),
  );
  const store = await readTrustStore(join(dir.path, "trust.json"), quiet);
  // Only the latest decision about a path survives; the same bytes elsewhere are new.
  assertEquals(trustState(store, "/p/plugins/x.ts", "bbb"), "trusted");
  assertEquals(trustState(store, "/p/plugins/x.ts", "aaa"), "changed");
  assertEquals(trustState(store, "/q/plugins/x.ts", "bbb"), "new");
  assertEquals(trustState(store, "/p/.harness/policies.jsonc", "ccc"), "declined");
  assertEquals(trustState(store, "/p/.harness/config.jsonc", "ddd"), "trusted");
});

Deno.test("readTrustStore() starts empty from a damaged store, and writes round-trip", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "trust.json");
  await Deno.writeTextFile(file, "{ not json");
  const out: string[] = [];
  const damaged = await readTrustStore(file, { write: (text) => out.push(text) });
  assertEquals(damaged.files, {});
  assertEquals(out.length, 1);
  recordTrust(damaged, "/p/a.ts", { sha256: "abc", trusted: true });
  await writeTrustStore(file, damaged, quiet);
  const again = await readTrustStore(file, quiet);
  assertEquals(trustState(again, "/p/a.ts", "abc"), "trusted");
  assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600);
});
