import { createHmac } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/logger.js";
import type { Notification } from "../../src/notify/notification.js";
import { Notifier, type NotificationTarget } from "../../src/notify/notifier.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { until } from "../helpers/until.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

// Notifications: each event once for all processes, signed, retried, never carrying a secret.

const prefix = uniquePrefix("notifier");
const API_KEY = "notifier-secret-api-key-0123456789";
const SECRET = "hmac-secret-of-the-receiver";
const redis = new Redis(REDIS_URL);
const logs: string[] = [];
const logger = createLogger({
  level: "debug",
  secrets: [],
  destination: { write: (line: string) => void logs.push(line) },
});

afterAll(async () => {
  await deleteKeysWithPrefix(prefix);
  redis.disconnect();
});

function notifier(targets: NotificationTarget[]): Notifier {
  return new Notifier({
    targets,
    redis,
    keyPrefix: prefix,
    logger,
    secrets: [API_KEY],
    retries: 3,
    retryBaseMs: 10,
  });
}

const event = (key: string): Notification => ({
  event: "upstream_down",
  key,
  at: new Date("2026-11-27T10:00:00Z"),
  // What an upstream's message may carry back: the key itself.
  summary: `the upstream is down (HTTP 503: bad key ${API_KEY})`,
  command: "npx etl status",
  details: { problem: `token=${API_KEY}` },
});

describe("notifications", () => {
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  it("are sent once by two processes that find the same event, signed, and without the key", async () => {
    const target = { url: receiver.url, events: null, format: "json" as const, secret: SECRET };
    const [one, two] = [notifier([target]), notifier([target])];
    one.notify(event("2026-11-27T10:00:00.000Z"));
    two.notify(event("2026-11-27T10:00:00.000Z"));
    await Promise.all([one.flush(5_000), two.flush(5_000)]);
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    const expected = createHmac("sha256", SECRET)
      .update(got?.body ?? "")
      .digest("hex");
    expect(got?.headers["x-music-etl-signature"]).toBe(`sha256=${expected}`);
    expect(got?.headers["x-music-etl-delivery"]).toBe("upstream_down:2026-11-27T10:00:00.000Z");
    expect(got?.body).not.toContain(API_KEY);
    const payload = JSON.parse(got?.body ?? "{}") as Record<string, unknown>;
    expect(payload).toMatchObject({ event: "upstream_down", command: "npx etl status" });
  });

  it("go to the targets that want the event, in Slack's form where asked, retried until accepted", async () => {
    const flaky = await startWebhookReceiver([500, 503]);
    try {
      const sent = notifier([
        { url: flaky.url, events: ["upstream_down"], format: "slack", secret: null },
        { url: receiver.url, events: ["run_ended"], format: "json", secret: null },
      ]);
      const before = receiver.received.length;
      sent.notify(event("second"));
      await sent.flush(5_000);
      expect(flaky.received).toHaveLength(3);
      expect(receiver.received).toHaveLength(before);
      const body = JSON.parse(flaky.received[2]?.body ?? "{}") as { text?: string };
      expect(body.text).toMatch(/^music-etl: the upstream is down/);
      expect(body.text).not.toContain(API_KEY);
      expect(flaky.received[2]?.headers["x-music-etl-signature"]).toBeUndefined();
    } finally {
      await flaky.close();
    }
  });

  it("give up on a target that keeps failing, naming only its origin, without holding anything up", async () => {
    const down = await startWebhookReceiver([500, 500, 500, 500, 500]);
    try {
      const sent = notifier([{ url: down.url, events: null, format: "json", secret: null }]);
      sent.notify(event("third"));
      await until(() => Promise.resolve(logs.some((line) => /gave up/.test(line))));
      expect(down.received).toHaveLength(4);
      const line = logs.find((l) => /gave up/.test(l)) ?? "";
      expect(line).toContain(new URL(down.url).origin);
      expect(line).not.toContain("secret-path");
      const checks = await sent.test(event("test"));
      expect(checks).toEqual([{ target: new URL(down.url).origin, problem: "HTTP 500" }]);
    } finally {
      await down.close();
    }
  });
});
