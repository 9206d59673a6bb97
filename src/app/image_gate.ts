// Images go to the model only when it can see them and they are within image_max_size: a
// user's images are refused before anything is sent (with what to do), a tool's (read_file of
// a picture) are left out of its result with a note the model reads instead.

import type { ImagePart } from "../messages.ts";
import type { ToolRun, ToolRunner } from "../tools/tool_runner.ts";
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
 * A tool runner whose results carry images only when the model can see them: otherwise the
 * images are left out and the result says why, so the model does not guess at a picture.
 *
 * @param runner The tools.
 * @param gate The model's sight and the size limit.
 * @returns The same tools, gated.
 */
export function withImageGate(runner: ToolRunner, gate: ImageGate): ToolRunner {
  const gated: ToolRunner = {
    list: () => runner.list(),
    validate: (name, args) => runner.validate(name, args),
    close: () => runner.close(),
    async run(name, args, options): Promise<ToolRun> {
      const run = await runner.run(name, args, options);
      if (!run.images?.length) return run;
      const verdict = await gate.vision();
      const notes: string[] = [];
      let images = run.images;
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
    },
  };
  // The runner's optional parts pass through: the approval prompt's diff comes from preview.
  if (runner.ready) gated.ready = () => runner.ready!();
  if (runner.unavailableReason) gated.unavailableReason = (name) => runner.unavailableReason!(name);
  if (runner.preview) gated.preview = (name, args, state) => runner.preview!(name, args, state);
  return gated;
}
