import type { ShapeKnobs } from "./interfaces.js";

/** A body in the charset the knob says, with the Content-Type that declares it. */
export interface CharsetBody {
  readonly body: string | Buffer;
  readonly contentType?: string;
}

/**
 * ISO-8859-1 bytes of a JSON text: a character beyond the charset becomes a \u escape (JSON's
 * own, so the value is unchanged; only text inside strings can hold one).
 */
function latin1Bytes(text: string): Buffer {
  const escaped = text.replace(
    /[\u0100-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return Buffer.from(escaped, "latin1");
}

export function inCharset(text: string, charset: ShapeKnobs["charset"]): CharsetBody {
  if (charset === "utf-8") return { body: text };
  const bytes = latin1Bytes(text);
  return charset === "iso-8859-1"
    ? { body: bytes, contentType: "application/json; charset=ISO-8859-1" }
    : { body: bytes, contentType: "application/json; charset=utf-8" };
}
