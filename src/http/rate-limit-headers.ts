export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** A header's value; the first of a repeated one. */
export function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function nonNegativeNumber(text: string | undefined): number | null {
  if (text === undefined || text.trim() === "") return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

/** `Retry-After` as milliseconds to wait: delta-seconds or an HTTP date. */
export function retryAfterMs(headers: ResponseHeaders, nowMs: number): number | null {
  const text = header(headers, "retry-after");
  const seconds = nonNegativeNumber(text);
  if (seconds !== null) return Math.ceil(seconds * 1000);
  const date = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

/**
 * `X-RateLimit-Reset` as milliseconds to wait. The documented form is epoch seconds; small values
 * are read as delta-seconds, the other convention in the wild (no epoch is below 10^9).
 */
export function rateLimitResetMs(headers: ResponseHeaders, nowMs: number): number | null {
  const value = nonNegativeNumber(header(headers, "x-ratelimit-reset"));
  if (value === null) return null;
  return value >= 1e9 ? Math.max(0, Math.ceil(value * 1000 - nowMs)) : Math.ceil(value * 1000);
}

/** `X-RateLimit-Remaining`: requests left in the current window, when the upstream says. */
export function rateLimitRemaining(headers: ResponseHeaders): number | null {
  return nonNegativeNumber(header(headers, "x-ratelimit-remaining"));
}

/** `X-RateLimit-Limit`: the upstream's limit, requests per second (its limits are per second). */
export function rateLimitLimit(headers: ResponseHeaders): number | null {
  const value = nonNegativeNumber(header(headers, "x-ratelimit-limit"));
  return value === null || value === 0 ? null : value;
}
