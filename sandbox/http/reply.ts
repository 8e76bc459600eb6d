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

/** Writes a complete response; JSON unless told otherwise. */
export function writeResponse(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string | number> = {},
  contentType = "application/json; charset=utf-8",
): void {
  response.writeHead(status, {
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}
