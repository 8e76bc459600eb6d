/** The human part of an error body: `message`, `error`, `errors`, or the text itself, shortened. */
export function upstreamMessage(body: unknown, text: string): string {
  if (body && typeof body === "object") {
    const record = body as Record<string, unknown>;
    for (const key of ["message", "error", "errors", "detail"]) {
      const value = record[key];
      if (typeof value === "string" && value.trim()) return shorten(value);
      if (value && typeof value === "object") return shorten(JSON.stringify(value));
    }
  }
  const plain = text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return plain ? shorten(plain) : "(empty body)";
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
