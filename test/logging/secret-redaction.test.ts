import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpTryEvent } from "../../src/http/http-messages.js";
import { capturedLog } from "../helpers/captured-log.js";
import { REDACTED, secretRedactor } from "../../src/logging/redact-secrets.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";
import { getDspsOperation } from "../../src/streams/catalogue/dsps.js";
import { getTerritoriesOperation } from "../../src/streams/catalogue/territories.js";
import { requestPayoutOperation } from "../../src/streams/royalties/payout-writes.js";
import { listPayoutsOperation } from "../../src/streams/royalties/payouts.js";

const WRONG_KEY = 'wrong-Secret-"quoted"-ключ-0123456789';
/** Sent in a header, so ASCII; with the characters JSON and URLs escape. */
const ECHOED_KEY = 'echoed/"Key"+0123456789';
let upstream: Upstream;
let refused: Upstream;
let echoing: Upstream;

beforeAll(async () => {
  upstream = await startUpstream("secrets", { etl: { request_timeout_ms: 300, max_retries: 2 } });
  refused = await startUpstream("secrets-refused", { apiKey: WRONG_KEY });
  echoing = await startUpstream("secrets-echoed", {
    sandbox: { apiKey: ECHOED_KEY },
    etl: { max_retries: 1 },
  });
});

afterAll(async () => {
  await upstream.close();
  await refused.close();
  await echoing.close();
});

/** The key in the forms a text may carry it: as is, and JSON-escaped. */
function formsOf(key: string): string[] {
  return [key, JSON.stringify(key).slice(1, -1)];
}

/** Everything a person could see of an error: message, stack, own properties, causes. */
function everythingOf(error: unknown): string {
  return [
    String(error),
    (error as Error).stack,
    inspect(error, { depth: 10, showHidden: true }),
    JSON.stringify(error, Object.getOwnPropertyNames(error)),
  ].join("\n");
}

describe("the API key", () => {
  it("appears in no log line or error, across successes, retries, timeouts, 4xx and 401", async () => {
    const { sandbox, context } = upstream;
    const errors: unknown[] = [];
    const capture = (promise: Promise<unknown>) =>
      promise.catch((error: unknown) => errors.push(error));

    await context.api.call(getTerritoriesOperation, { key: "all" });
    sandbox.setKnobs({
      faultRate: 1,
      faults: ["error500", "slow", "reset", "truncated", "html503"],
      slowMs: 2_000,
    });
    await capture(context.api.call(getDspsOperation, { key: "all" }));
    sandbox.setKnobs({ faultRate: 0 });
    await capture(
      context.http.request({
        operation: "probe",
        method: "GET",
        path: "/api/v1/getTrendsTotal",
        body: { bad: 1 },
      }),
    );
    await capture(refused.context.api.call(listPayoutsOperation));

    expect(errors).toHaveLength(3);
    for (const [key, logs] of [
      [sandbox.apiKey, upstream.logs],
      [WRONG_KEY, refused.logs],
    ] as const) {
      expect(logs.length).toBeGreaterThan(0);
      expect(logs.join("")).not.toContain(key);
      for (const error of errors) expect(everythingOf(error)).not.toContain(key);
    }
    expect(upstream.logs.join("")).toContain("retrying");
  });

  it("is redacted from every answer about a failure the upstream echoes it in: 400, failure body, 401", async () => {
    const { sandbox, context } = echoing;
    const events: HttpTryEvent[] = [];
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => expect.fail("the request succeeded"),
        (error: unknown) => error,
      );
    const request = () =>
      context.http.request({
        operation: "probe",
        method: "GET",
        path: "/api/v1/getDsps/all",
        onTry: (event) => events.push(event),
      });

    sandbox.setKnobs({ echoCredential: 400 });
    const badRequest = await failure(request());
    // A refusal the payout operation takes as its answer, and the command stores.
    const refusal = await context.api.call(requestPayoutOperation, { amount: "150.00" });
    sandbox.setKnobs({ echoCredential: 200 });
    const failureBody = await failure(request());
    sandbox.setKnobs({ echoCredential: 401 });
    const unauthorized = await failure(request());

    expect(refusal.accepted).toBe(false);
    const bodies = events.flatMap((event) => event.failureBody ?? []);
    expect(bodies).toHaveLength(2);
    const texts = {
      badRequest: everythingOf(badRequest),
      failureBody: everythingOf(failureBody),
      unauthorized: everythingOf(unauthorized),
      refusal: `${refusal.message} ${JSON.stringify(refusal.raw)}`,
      bodies: bodies.join("\n"),
      logs: echoing.logs.join(""),
    };
    for (const [what, text] of Object.entries(texts)) {
      for (const form of formsOf(ECHOED_KEY)) expect(text, what).not.toContain(form);
      // The echo reached each: where the key was, the redaction is.
      if (what !== "logs") expect(text, what).toContain(REDACTED);
    }
    expect((badRequest as Error).message).toContain(
      `HTTP 400: Invalid request for the token ${REDACTED}`,
    );
    expect((unauthorized as Error).message).toContain(`401 Invalid token ${REDACTED}`);
    expect(refusal.raw).toEqual({
      status: false,
      message: `Invalid request for the token ${REDACTED}`,
      request: { headers: { authorization: `Bearer ${REDACTED}` } },
    });
  });

  it("is found in each form a text may carry it, and short values are no secrets", () => {
    const redact = secretRedactor([ECHOED_KEY, "", "abc"]);
    const php = 'echoed\\/\\"Key\\"+0123456789';
    for (const form of [
      ECHOED_KEY,
      JSON.stringify(ECHOED_KEY).slice(1, -1),
      php,
      encodeURIComponent(ECHOED_KEY),
      new URLSearchParams({ k: ECHOED_KEY }).toString().slice(2),
    ]) {
      expect(redact(`before ${form} after`)).toBe(`before ${REDACTED} after`);
    }
    expect(secretRedactor(["ключ-0123"])('{"k":"\\u043a\\u043b\\u044e\\u0447-0123"}')).toBe(
      `{"k":"${REDACTED}"}`,
    );
    expect(redact("abc, and nothing else")).toBe("abc, and nothing else");
    expect(secretRedactor([])("text")).toBe("text");
  });

  it("is redacted by the logger wherever it is put, raw or JSON-escaped", () => {
    const { logger, lines } = capturedLog([WRONG_KEY]);
    logger.info({ headers: { authorization: `Bearer ${WRONG_KEY}` } }, "headers");
    logger.info({ apiKey: WRONG_KEY, nested: { MUSIC_API_KEY: WRONG_KEY } }, "fields");
    logger.info({ detail: { text: `the key is ${WRONG_KEY}` } }, `message with ${WRONG_KEY}`);
    logger.error(new Error(`boom ${WRONG_KEY}`), "error");
    const output = lines.join("");
    expect(lines).toHaveLength(4);
    expect(output).not.toContain(WRONG_KEY);
    expect(output).not.toContain(JSON.stringify(WRONG_KEY).slice(1, -1));
    expect(output.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(6);
  });
});
