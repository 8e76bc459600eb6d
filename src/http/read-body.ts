import type { Readable } from "node:stream";
import { header, type ResponseHeaders } from "./rate-limit-headers.js";

/**
 * A body read within its limit (its bytes as received), or refused once past it (the bytes that
 * had arrived).
 */
export type BodyRead = { readonly bytes: Buffer } | { readonly tooLarge: number };

/** The Content-Length an answer declares, or null when it declares none (or nonsense). */
export function declaredLength(headers: ResponseHeaders): number | null {
  const text = header(headers, "content-length");
  return text !== undefined && /^\d+$/.test(text.trim()) ? Number(text) : null;
}

/**
 * A body's bytes, read chunk by chunk and counted as it arrives: as soon as more than `maxBytes`
 * have arrived the body is destroyed (its connection closed, the rest never read) and what had
 * arrived is returned instead. With a declared length within the limit, one buffer of that size
 * is filled as the chunks arrive, so the body is held once as bytes (not as chunks and again as
 * their concatenation), and never as a whole text. Decoding is decodeBody's, by the charset.
 */
export async function readBody(
  body: Readable,
  maxBytes: number,
  declaredBytes: number | null,
): Promise<BodyRead> {
  let filled =
    declaredBytes !== null && declaredBytes <= maxBytes ? Buffer.allocUnsafe(declaredBytes) : null;
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (received + chunk.length > maxBytes) {
      body.destroy();
      return { tooLarge: received + chunk.length };
    }
    if (filled !== null && received + chunk.length <= filled.length) {
      chunk.copy(filled, received);
    } else {
      // More than the length declared (undici refuses that at the end): kept as chunks.
      if (filled !== null) chunks.push(filled.subarray(0, received));
      filled = null;
      chunks.push(chunk);
    }
    received += chunk.length;
  }
  return {
    bytes:
      filled !== null
        ? filled.subarray(0, received)
        : chunks.length === 1
          ? (chunks[0] as Buffer)
          : Buffer.concat(chunks, received),
  };
}
