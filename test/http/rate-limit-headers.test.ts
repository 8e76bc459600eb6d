import { describe, expect, it } from "vitest";
import {
  rateLimitLimit,
  rateLimitRemaining,
  rateLimitResetMs,
  retryAfterMs,
} from "../../src/http/rate-limit-headers.js";

const now = Date.UTC(2026, 10, 21, 12, 0, 0);

describe("rate-limit headers", () => {
  it("reads Retry-After in seconds and as an HTTP date", () => {
    expect(retryAfterMs({ "retry-after": "3" }, now)).toBe(3000);
    expect(retryAfterMs({ "retry-after": "0.5" }, now)).toBe(500);
    expect(retryAfterMs({ "retry-after": new Date(now + 7000).toUTCString() }, now)).toBe(7000);
    expect(retryAfterMs({ "retry-after": new Date(now - 7000).toUTCString() }, now)).toBe(0);
    expect(retryAfterMs({ "retry-after": "soon" }, now)).toBeNull();
    expect(retryAfterMs({}, now)).toBeNull();
  });

  it("reads X-RateLimit-Reset as epoch seconds, or as seconds to wait when small", () => {
    expect(rateLimitResetMs({ "x-ratelimit-reset": String(now / 1000 + 2) }, now)).toBe(2000);
    expect(rateLimitResetMs({ "x-ratelimit-reset": "5" }, now)).toBe(5000);
    expect(rateLimitResetMs({ "x-ratelimit-reset": String(now / 1000 - 10) }, now)).toBe(0);
    expect(rateLimitResetMs({}, now)).toBeNull();
  });

  it("reads X-RateLimit-Limit as a positive rate", () => {
    expect(rateLimitLimit({ "x-ratelimit-limit": "30" })).toBe(30);
    expect(rateLimitLimit({ "x-ratelimit-limit": ["3", "60"] })).toBe(3);
    expect(rateLimitLimit({ "x-ratelimit-limit": "0" })).toBeNull();
    expect(rateLimitLimit({ "x-ratelimit-limit": "60;w=60" })).toBeNull();
    expect(rateLimitLimit({})).toBeNull();
  });

  it("reads X-RateLimit-Remaining", () => {
    expect(rateLimitRemaining({ "x-ratelimit-remaining": "0" })).toBe(0);
    expect(rateLimitRemaining({ "x-ratelimit-remaining": ["4", "9"] })).toBe(4);
    expect(rateLimitRemaining({ "x-ratelimit-remaining": "many" })).toBeNull();
  });
});
