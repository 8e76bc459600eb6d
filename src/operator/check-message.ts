/**
 * What /readyz says of a failed check: the error's message only (never its stack, cause or
 * connection options), with anything that looks like a URL removed, since a connection URL may
 * carry a password. Connection errors often come as an AggregateError with an empty message (one
 * error per address tried): its first inner message, or the error code, is said instead. The
 * length is capped, but above the longest message the worker's own checks make (a refused
 * credential's: the operation refused, since when, and how many re-checks).
 */
export function checkMessage(error: unknown): string {
  return scrubUrls(rawMessage(error)).slice(0, 300);
}

function rawMessage(error: unknown): string {
  if (!(error instanceof Error)) return "check failed";
  if (error.message.trim() !== "") return error.message;
  if (error instanceof AggregateError) {
    const inner: unknown = error.errors[0];
    if (inner instanceof Error && inner.message.trim() !== "") return inner.message;
  }
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : error.name;
}

function scrubUrls(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, "[url]");
}
