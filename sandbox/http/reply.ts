import type { ServerResponse } from "node:http";

/** What a route answers; the pipeline turns it into bytes (with drift, faults, headers). */
export interface Reply {
  status: number;
  body: unknown;
}

export function ok(body: unknown): Reply {
  return { status: 200, body };
}

export function json(status: number, body: unknown): Reply {
  return { status, body };
}

/** Bytes of each chunk of a body sent `chunked`. */
const CHUNK_BYTES = 16 * 1024;

/**
 * Writes a complete response; JSON unless told otherwise. `chunked`: in chunks of 16 KiB with no
 * Content-Length, so the client learns its size only as it arrives.
 */
export function writeResponse(
  response: ServerResponse,
  status: number,
  text: string | Buffer,
  headers: Record<string, string | number> = {},
  contentType = "application/json; charset=utf-8",
  chunked = false,
): void {
  if (!chunked) {
    response.writeHead(status, {
      "Content-Type": contentType,
      "Content-Length": Buffer.byteLength(text),
      ...headers,
    });
    response.end(text);
    return;
  }
  response.writeHead(status, { "Content-Type": contentType, ...headers });
  const bytes = typeof text === "string" ? Buffer.from(text) : text;
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
    response.write(bytes.subarray(at, at + CHUNK_BYTES));
  }
  response.end();
}
