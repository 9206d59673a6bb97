// Images go to the model only when it can see them and they are within image_max_size: a
// user's images are refused before anything is sent (with what to do), a tool's (read_file of
// a picture) are left out of its result with a note the model reads instead (a stage placed
// after each call's run).

import type { ImagePart } from "../messages.ts";
import type { ToolRun } from "../tools/tool_entry.ts";
import type { PlacedStage } from "../agent/call_flight.ts";
import { humanSize } from "../platform/human_size.ts";
import type { VisionVerdict } from "./model_vision.ts";

/** The run's answer to "can the model see?" and the size limit. */
export interface ImageGate {
  vision(): Promise<VisionVerdict>;
  /** image_max_size, in bytes. */
  maxBytes: number;
}

/**
 * Why a user's images cannot be sent, or undefined when they can.
 *
 * @param images The images of the message.
 * @param gate The model's sight and the size limit.
 * @returns A sentence for the user: what is wrong and what to do.
 *
 * @example
 * ```ts
 * import { refuseUserImages } from "./image_gate.ts";
 * const image = { mediaType: "image/png" as const, data: "", sha256: "", bytes: 10, name: "a.png" };
 * const gate = { maxBytes: 100, vision: () => Promise.resolve({ sees: false, why: "blind" }) };
 * if (await refuseUserImages([image], gate) !== "blind: the message was not sent") throw new Error();
 * if (await refuseUserImages([], gate) !== undefined) throw new Error();
 * ```
 */
export async function refuseUserImages(
  images: readonly ImagePart[],
  gate: ImageGate,
): Promise<string | undefined> {
  if (images.length === 0) return undefined;
  const big = images.find((image) => image.bytes > gate.maxBytes);
  if (big) {
    return `Image "${big.name ?? "pasted"}" is ${humanSize(big.bytes)}, over the ${
      humanSize(gate.maxBytes)
    } of image_max_size: make it smaller or raise image_max_size. The message was not sent`;
  }
  const verdict = await gate.vision();
  if (verdict.sees === false) {
    return `${verdict.why ?? "The model cannot see images"}: the message was not sent`;
  }
  return undefined;
}

/**
 * The stage after the run that lets a tool's images (read_file of a picture) reach only a
 * model that can see them, within image_max_size: otherwise they are left out and the result
 * says why, so the model does not guess at a picture.
 *
 * @param gate The model's sight and the size limit.
 * @returns The stage, to place after the run.
 */
export function imageGateStage(gate: ImageGate): PlacedStage {
  return {
    name: "image_gate",
    after: "run",
    async run(flight) {
      const run = flight.run;
      if (!run?.images?.length) return undefined;
      const gated = await gatedRun(run, gate);
      flight.run = gated;
      flight.result = gated.result;
      return undefined;
    },
  };
}

async function gatedRun(run: ToolRun, gate: ImageGate): Promise<ToolRun> {
  const verdict = await gate.vision();
  const notes: string[] = [];
  let images = run.images ?? [];
  if (verdict.sees === false) {
    notes.push(`The image was not shown to you: ${verdict.why ?? "the model cannot see"}`);
    images = [];
  }
  const kept = images.filter((image) => image.bytes <= gate.maxBytes);
  if (kept.length < images.length) {
    notes.push(`An image over the ${humanSize(gate.maxBytes)} of image_max_size was not shown`);
  }
  if (notes.length === 0) return run;
  const { images: _images, ...rest } = run;
  const data = [run.result.data ?? "", ...notes.map((note) => `[${note}]`)].join("\n").trim();
  return {
    ...rest,
    ...(kept.length > 0 ? { images: kept } : {}),
    result: { ...run.result, data },
  };
}
