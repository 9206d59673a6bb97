// The image gate: a tool's image is left out, with a note the model reads, for a model that
// cannot see or an image over image_max_size (its stage after the run of each call); a user's
// images are refused before sending.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { type ImageGate, imageGateStage, refuseUserImages } from "../../src/app/image_gate.ts";
import { driveToolCall } from "../../src/agent/call_driver.ts";
import { EventLog, openLoopHost, RecordingApprover, toolScope } from "../helpers/loop_host.ts";
import type { ToolHost } from "../../src/sandbox/workers/tool_host.ts";

/** A real 1x1 PNG. */
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);
const sees = (value: boolean | undefined) => () =>
  Promise.resolve(
    value === false ? { sees: false, why: 'Model "m" cannot see images' } : { sees: value },
  );

/** read_file of `a.png` driven through its path with the image gate's stage after the run. */
async function readImage(host: ToolHost, gate: ImageGate) {
  const flight = await driveToolCall(
    { id: "c1", name: "read_file", arguments: '{"path":"a.png"}' },
    {
      tools: toolScope(host),
      approver: new RecordingApprover(),
      sink: new EventLog().sink,
      state: {},
      stages: [imageGateStage(gate)],
    },
    new AbortController().signal,
  );
  return { images: flight.run?.images, data: flight.result?.data };
}

Deno.test("the image gate leaves a tool's image out for a model that cannot see, and says so", async () => {
  await using h = await openLoopHost({ builtins: true, grants: ["--allow-read=."] });
  Deno.writeFileSync(join(h.workspace, "a.png"), PNG);
  const blind = await readImage(h.host, { vision: sees(false), maxBytes: 1024 });
  assertEquals(blind.images, undefined);
  assert(blind.data?.includes('[The image was not shown to you: Model "m" cannot see images]'));
  const over = await readImage(h.host, { vision: sees(true), maxBytes: 10 });
  assertEquals(over.images, undefined);
  assert(over.data?.includes("image_max_size"));
  const open = await readImage(h.host, { vision: sees(undefined), maxBytes: 1024 });
  assertEquals(open.images?.length, 1);
});

Deno.test("refuseUserImages() refuses before sending: too big, or a model that cannot see", async () => {
  const image = {
    mediaType: "image/png" as const,
    data: "",
    sha256: "x",
    bytes: 2048,
    name: "a.png",
  };
  assert(
    (await refuseUserImages([image], { maxBytes: 1024, vision: sees(true) }))?.includes(
      "image_max_size",
    ),
  );
  assertEquals(
    await refuseUserImages([image], { maxBytes: 4096, vision: sees(false) }),
    'Model "m" cannot see images: the message was not sent',
  );
  assertEquals(
    await refuseUserImages([image], { maxBytes: 4096, vision: sees(undefined) }),
    undefined,
  );
});
