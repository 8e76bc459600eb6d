import { Writable } from "node:stream";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/logger.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";

const WRONG_KEY = 'wrong-Secret-"quoted"-ключ-0123456789';
let upstream: Upstream;
let refused: Upstream;

beforeAll(async () => {
  upstream = await startUpstream("secrets", { etl: { request_timeout_ms: 300, max_retries: 2 } });
  refused = await startUpstream("secrets-refused", { apiKey: WRONG_KEY });
});

afterAll(async () => {
  await upstream.close();
  await refused.close();
});

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

    await context.api.catalogue.getTerritories({ key: "all" });
    sandbox.setKnobs({
      faultRate: 1,
      faults: ["error500", "slow", "reset", "truncated", "html503"],
      slowMs: 2_000,
    });
    await capture(context.api.catalogue.getDsps({ key: "all" }));
    sandbox.setKnobs({ faultRate: 0 });
    await capture(
      context.http.request({
        operation: "probe",
        method: "GET",
        path: "/api/v1/getTrendsTotal",
        body: { bad: 1 },
      }),
    );
    await capture(refused.context.api.royalties.listPayouts());

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

  it("is redacted by the logger wherever it is put, raw or JSON-escaped", () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: "info",
      secrets: [WRONG_KEY],
      destination: new Writable({
        write(chunk, _encoding, callback) {
          lines.push(String(chunk));
          callback();
        },
      }),
    });
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
