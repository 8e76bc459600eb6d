import type { IncomingMessage } from "node:http";
import { HttpError } from "./errors.js";

const MAX_BODY_BYTES = 1_000_000;

/** The request body as text; 413 past 1 MB, which no operation of this API comes near. */
export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, { message: "Payload too large" });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The body as a JSON object; an empty body reads as {}. GET bodies are read the same way. */
export function parseJsonObject(body: string): Record<string, unknown> {
  if (body.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new HttpError(400, { message: "Malformed JSON body" });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(400, { message: "The request body must be a JSON object" });
  }
  return value as Record<string, unknown>;
}
