import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { etlIn } from "../helpers/cli.js";
import { startQueueHarness, type QueueHarness } from "../helpers/queue-harness.js";
import { REDIS_URL } from "../helpers/redis.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const UNKNOWN = 987_654_321;
const CAUSE = `artist_id ${UNKNOWN}: HTTP 404 (Artist ${UNKNOWN} not found)`;
const STREAMS = ["artist_stats_artists", "artist_stats_radio", "artist_stats_urls"];
const dir = makeTempDir("permanent-failures");
let harness: SyncHarness;
let queues: QueueHarness;
let known: number;

beforeAll(async () => {
  harness = await startSyncHarness("permanent_failures", {
    today: "2026-01-31",
    sandbox: { size: { socialArtists: 2 } },
    // Every budget a transient failure gets: none of it may go to a 404.
    etl: { job_backoff_ms: 10, job_attempts: 3, max_retries: 2 },
  });
  known = harness.upstream.sandbox.data.socialArtists()[0]?.cm_artist ?? 0;
  queues = startQueueHarness({
    ...harness,
    config: { ...harness.config, social_artist_ids: [known, UNKNOWN] },
  });
  queues.startWorker();
  writeConfig([known, UNKNOWN]);
});

afterAll(async () => {
  await queues?.close();
  await harness?.close();
  dir.remove();
});

function writeConfig(socialArtistIds: readonly number[]) {
  dir.write("etl.config.json", {
    start_date: harness.config.start_date,
    redis_prefix: harness.config.redis_prefix,
    requests_per_second: 1000,
    social_artist_ids: socialArtistIds,
  });
}

const run = etlIn(dir.path, () => ({
  DATABASE_URL: harness.warehouse.url,
  REDIS_URL,
  MUSIC_API_URL: harness.upstream.sandbox.url,
  MUSIC_API_KEY: harness.upstream.sandbox.apiKey,
  ETL_CONFIG: join(dir.path, "etl.config.json"),
  LOG_LEVEL: "silent",
}));
const etl = (...args: string[]) => run(args);

async function failedStates() {
  return harness.warehouse.query<{
    stream: string;
    attempts: number;
    failure_cause: string | null;
    retry_job_id: string | null;
  }>(
    `select s.stream, s.failure_cause, s.retry_job_id,
            (select count(*)::int from etl.attempts r
              where r.stream = s.stream and r.partition = s.partition) as attempts
       from etl.stream_state s where s.last_status = 'failed' order by s.stream, s.partition`,
  );
}

describe("a failure no retry can cure (an artist the upstream does not know)", () => {
  it("is sent once, failed once, not retried by the client nor the job, and recorded by its cause", async () => {
    harness.upstream.sandbox.resetStats();
    const { runId } = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: STREAMS,
      range: { from: "2026-01-29", to: "2026-01-30" },
    });
    const progress = await queues.waitForRun(runId);
    // Two days of radio and the URLs, for the unknown artist.
    expect(progress).toMatchObject({ failed: 3 });
    const failed = await failedStates();
    expect(failed).toEqual([
      { stream: "artist_stats_radio", attempts: 1, failure_cause: CAUSE, retry_job_id: null },
      { stream: "artist_stats_radio", attempts: 1, failure_cause: CAUSE, retry_job_id: null },
      { stream: "artist_stats_urls", attempts: 1, failure_cause: CAUSE, retry_job_id: null },
    ]);
    // The artists stream's summary look-up of it, then one request per failed partition.
    expect(harness.upstream.sandbox.stats().byStatus[404]).toBe(1 + 3);
  });

  it("is one line of status, and retry-failed leaves it unless asked", async () => {
    const status = await etl("status");
    const lines = status.stdout.split("\n");
    const causes = lines.filter((line) => line.includes(CAUSE));
    expect(causes).toEqual([`  ${CAUSE}: 3 partitions of 2 streams`]);

    const retry = await etl("retry-failed");
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stdout).toContain("nothing to retry");
    expect(retry.stdout).toContain(
      "3 partitions failed for a cause no retry can cure and are not queued",
    );
    expect(await queues.queue.getJobCountByTypes("wait", "prioritized", "delayed")).toBe(0);
  });

  it("is one line of a sync's summary, however many partitions it failed", async () => {
    const sync = await etl(
      "sync",
      "--only",
      "artist_stats_urls,artist_stats_radio",
      "--from",
      "2026-01-27",
      "--to",
      "2026-01-28",
    );
    expect(sync.code).toBe(1);
    const lines = sync.stdout.split("\n");
    expect(lines).toContain("3 partitions failed:");
    expect(lines.filter((line) => line.includes(String(UNKNOWN)))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^  ${CAUSE.replace(/[()]/g, "\\$&")}: 3 partitions of 2 streams, e\\.g\\. artist_stats_`,
        ),
      ),
    ]);
  });

  it("is closed by dismiss-failed once the configuration no longer names the artist, and nothing else is", async () => {
    const before = await dismissible();
    writeConfig([known]);
    const dismissed = await etl("dismiss-failed");
    expect(dismissed.code, dismissed.stderr).toBe(0);
    expect(dismissed.stdout).toMatch(
      /^dismissed 5 failed partitions the configuration no longer plans/m,
    );
    expect(await failedStates()).toEqual([]);
    const after = await dismissible();
    // Each kept its last error; the rows of the known artist are as they were.
    expect(after.dismissed).toBe(5);
    expect(after.withError).toBe(5);
    expect(after.succeeded).toBe(before.succeeded);
    const status = await etl("status");
    expect(status.stdout).not.toContain(CAUSE);
  });
});

async function dismissible() {
  const [row] = await harness.warehouse.query<{
    dismissed: number;
    withError: number;
    succeeded: number;
  }>(
    `select count(*) filter (where last_status = 'dismissed')::int as dismissed,
            count(*) filter (where last_status = 'dismissed' and last_error is not null
                               and dismissed_at is not null)::int as "withError",
            count(*) filter (where last_status = 'succeeded')::int as succeeded
       from etl.stream_state`,
  );
  return row ?? { dismissed: 0, withError: 0, succeeded: 0 };
}
