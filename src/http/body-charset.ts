import { isUtf8 } from "node:buffer";
import { TextDecoder } from "node:util";
import { header, type ResponseHeaders } from "./rate-limit-headers.js";

/**
 * A body as UTF-8 bytes, decoded by the charset its Content-Type declares (UTF-8 when it declares
 * none, as JSON's RFC 8259 says), a byte-order mark skipped; or why it could not be.
 */
export type DecodedBody =
  | { readonly bytes: Buffer }
  | { readonly charset: string; readonly problem: "invalid" | "unknown" };

/** The charset a Content-Type declares, lower case; "utf-8" when it declares none. */
export function declaredCharset(headers: ResponseHeaders): string {
  const contentType = header(headers, "content-type") ?? "";
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  const charset = (match?.[1] ?? match?.[2] ?? "").trim().toLowerCase();
  return charset === "" ? "utf-8" : charset;
}

const UTF8_LABELS = new Set(["utf-8", "utf8", "unicode-1-1-utf-8"]);

function withoutUtf8Mark(bytes: Buffer): Buffer {
  const mark = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return mark ? bytes.subarray(3) : bytes;
}

/**
 * Decodes `bytes` strictly: a sequence that is not valid in the charset is refused, never
 * replaced by U+FFFD, since a replaced character is a changed value stored without a word. A UTF-8
 * body is checked in place and kept as it is, the common case costing no copy.
 */
export function decodeBody(bytes: Buffer, charset: string): DecodedBody {
  if (UTF8_LABELS.has(charset)) {
    const utf8 = withoutUtf8Mark(bytes);
    return isUtf8(utf8) ? { bytes: utf8 } : { charset, problem: "invalid" };
  }
  let decoder: TextDecoder;
  try {
    // WHATWG's labels: iso-8859-1 and latin1 decode as windows-1252, as browsers (and the PHP
    // stacks that send them) mean them.
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    return { charset, problem: "unknown" };
  }
  try {
    return { bytes: Buffer.from(decoder.decode(bytes), "utf8") };
  } catch {
    return { charset, problem: "invalid" };
  }
}

/**
 * What a failure's body says, for its message: decoded by its charset when it can be, else with
 * the bytes that cannot replaced (the message of a 4xx is read, not stored as data).
 */
export function decodeLeniently(bytes: Buffer, charset: string): Buffer {
  const decoded = decodeBody(bytes, charset);
  return "bytes" in decoded ? decoded.bytes : Buffer.from(withoutUtf8Mark(bytes).toString("utf8"));
}
