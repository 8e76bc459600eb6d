import { UnrecoverableError } from "bullmq";
import { STREAMS } from "../streams/registry.js";
import type { Stream } from "../streams/stream.js";

/**
 * The stream a job names. A name no stream has (a job queued by another version, or by hand)
 * can never succeed: it fails at once, with no retry.
 */
export function jobStream(name: string): Stream {
  const stream = STREAMS.find((s) => s.name === name);
  if (!stream) throw new UnrecoverableError(`unknown stream "${name}": no retry can run it`);
  return stream;
}
