import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isUpstreamAnswer, ResponseTooLargeError } from "../../src/http/upstream-errors.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";
import { listIncomesOperation } from "../../src/streams/royalties/incomes.js";

/** A limit well below the incomes list (about 330 KB), well above the chunks it comes in. */
const LIMIT = 64 * 1024;
let upstream: Upstream;
/** The incomes list as the sandbox serves it. */
let whole: Buffer;

beforeAll(async () => {
  upstream = await startUpstream("response_size", {
    sandbox: { size: { incomes: 2_000 }, today: "2026-01-31" },
    etl: { max_response_bytes: LIMIT, max_retries: 4 },
  });
  const response = await fetch(`${upstream.sandbox.url}/api/v1/incomes`, {
    headers: { authorization: `Bearer ${upstream.sandbox.apiKey}` },
  });
  whole = Buffer.from(await response.arrayBuffer());
});

afterAll(() => upstream.close());

beforeEach(() => {
  upstream.sandbox.setKnobs({ chunkedBodies: false });
  upstream.sandbox.resetStats();
});

const incomes = () => upstream.context.api.send(listIncomesOperation, {});

async function refusal(): Promise<ResponseTooLargeError> {
  const error = await incomes().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ResponseTooLargeError);
  return error as ResponseTooLargeError;
}

describe("max_response_bytes", () => {
  it("refuses an answer whose Content-Length passes it, unread and not retried", async () => {
    const error = await refusal();
    expect(error.message).toBe(
      `royalties.listIncomes (GET /api/v1/incomes): HTTP 200 answer larger than max_response_bytes (65536 bytes, 64 KiB): its Content-Length says ${whole.length} bytes, ${Math.ceil(whole.length / 1024)} KiB; not retried: to accept it, raise max_response_bytes and the heap with it (docs/operations.md, "Memory")`,
    );
    expect(error.retryable).toBe(false);
    expect(error.context).toMatchObject({ status: 200, limitBytes: LIMIT });
    // An answer all the same: it proves the credential accepted.
    expect(isUpstreamAnswer(error)).toBe(true);
    expect(upstream.sandbox.stats().requests).toBe(1);
  });

  it("counts a body sent with no Content-Length as it arrives, and stops reading past it", async () => {
    upstream.sandbox.setKnobs({ chunkedBodies: true });
    const error = await refusal();
    const received = Number(error.context.receivedBytes);
    expect(error.message).toContain(
      `answer larger than max_response_bytes (65536 bytes, 64 KiB): reading stopped at ${received} bytes`,
    );
    // Stopped within one chunk of the limit: the rest of the body was never read.
    expect(received).toBeGreaterThan(LIMIT);
    expect(received).toBeLessThan(LIMIT + 64 * 1024);
    expect(received).toBeLessThan(whole.length);
    expect(upstream.sandbox.stats().requests).toBe(1);
  });

  it("reads an answer within it whole, chunked or not, as its bytes", async () => {
    const another = await startUpstream("response_size_within", {
      sandbox: { size: { incomes: 2_000 }, today: "2026-01-31" },
      etl: { max_response_bytes: whole.length },
    });
    try {
      const send = () => another.context.api.send(listIncomesOperation, {});
      expect((await send()).bytes.equals(whole)).toBe(true);
      another.sandbox.setKnobs({ chunkedBodies: true });
      expect((await send()).bytes.equals(whole)).toBe(true);
    } finally {
      await another.close();
    }
  });
});
