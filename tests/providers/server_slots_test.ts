// What harness reads of a server's slots (issue 41): llama-server's /props total_slots, and its
// slot actions, which answer 501 when the server has no --slot-save-path.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { startFakeLlamaSlots } from "../helpers/fake_llama_slots.ts";
import {
  llamaSlotActions,
  probeSlotLayout,
  readSlotLayout,
} from "../../src/providers/server_slots.ts";

Deno.test("readSlotLayout() reads total_slots and leaves other servers unmanaged", () => {
  assertEquals(readSlotLayout({ total_slots: 3 }), { kind: "slots", total: 3 });
  assertEquals(readSlotLayout({ total_slots: 1 }), { kind: "one_slot" });
  for (const body of [undefined, {}, { total_slots: 0 }, { total_slots: "2" }, [1]]) {
    assertEquals(readSlotLayout(body), { kind: "unmanaged" }, JSON.stringify(body));
  }
});

Deno.test("probeSlotLayout() asks /props beside the /v1 endpoint", async () => {
  await using server = startFakeLlamaSlots({ slots: 2 });
  assertEquals(await probeSlotLayout({ baseUrl: server.baseUrl }), { kind: "slots", total: 2 });
  assertEquals(await probeSlotLayout({ baseUrl: `${server.baseUrl}/` }), {
    kind: "slots",
    total: 2,
  });
});

Deno.test("llamaSlotActions() tells a server without a save path from a failed action", async () => {
  await using plain = startFakeLlamaSlots({ slots: 1 });
  const refused = await llamaSlotActions({ baseUrl: plain.baseUrl }).save(0, "a.bin");
  assertEquals(refused.kind, "not_supported");
  await using saving = startFakeLlamaSlots({ slots: 1, savePath: true });
  const actions = llamaSlotActions({ baseUrl: saving.baseUrl });
  assertEquals((await actions.save(0, "a.bin")).kind, "done");
  assertEquals((await actions.restore(0, "a.bin")).kind, "done");
  const missing = await actions.restore(0, "never-saved.bin");
  assertEquals(missing.kind, "failed");
});
