// Every endpoint the sandbox serves from its records (a `sandboxEndpoint` module) is synced by the
// stream that asks for it, and each partition's rows hold exactly the records served for the
// requests its attempt landed, no more, no fewer: an endpoint added with such a module is
// reconciled here, with no test of its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_MODULES } from "../../sandbox/endpoint-modules.js";
import { moduleOperation } from "../../sandbox/http/endpoint-route.js";
import { endpointRecords } from "../../sandbox/index.js";
import { STREAMS } from "../../src/streams/registry.js";
import type { Partition } from "../../src/streams/partition.js";
import type { Stream } from "../../src/streams/stream.js";
import { STREAM_FAMILIES } from "../../src/config/families.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";

const TODAY = "2026-02-15";

/** A value as JSON with its objects' keys in order: what jsonb keeps of a record. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

/** The family whose statistics, catalogue… an endpoint's path belongs to (`/artist-stats/x`). */
function familyOf(operation: string): string {
  const family = operation.split(".")[0]?.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const known = STREAM_FAMILIES.find((name) => name === family);
  if (!known) throw new Error(`${operation}: no family of that name`);
  return known;
}

/** One succeeded sync attempt: its partition as planned, and the responses it landed. */
interface Attempt {
  readonly partition_data: Partition;
  readonly response_ids: string[];
}

const modules = [...ENDPOINT_MODULES].map(([name, endpoint]) => ({
  name,
  operation: moduleOperation(endpoint),
}));

describe("the endpoints the sandbox serves from records", () => {
  let harness: SyncHarness;
  beforeAll(async () => {
    harness = await startSyncHarness("served_records", { today: TODAY });
    const { data } = harness.upstream.sandbox;
    const artists = data.socialArtists().map((artist) => artist.cm_artist);
    const families = [...new Set(modules.map(({ operation }) => familyOf(operation)))];
    await harness.sync({
      only: families,
      from: "2026-02-14",
      to: "2026-02-14",
      settings: { social_artist_ids: artists },
    });
  });
  afterAll(() => harness.close());

  it("have modules to reconcile", () => {
    expect(modules.map(({ name }) => name)).toContain("urls");
  });

  it.each(modules)(
    "$name: every partition holds exactly the records served",
    async ({ name, operation }) => {
      const streams = await harness.warehouse.query<{ stream: string }>(
        "select distinct stream from etl.responses where operation = $1",
        [operation],
      );
      expect(streams.length, `no stream landed ${operation}`).toBe(1);
      const stream = STREAMS.find((s) => s.name === streams[0]?.stream) as Stream;
      const attempts = await harness.warehouse.query<Attempt>(
        `select partition_data, response_ids::text[] from etl.attempts
          where stream = $1 and kind = 'sync' and status = 'succeeded'`,
        [stream.name],
      );
      expect(attempts.length).toBeGreaterThan(0);
      const [output] = stream.outputs;
      if (!output || !("scope" in output)) throw new Error(`${stream.name}: no scope to read by`);
      let compared = 0;
      for (const { partition_data: partition, response_ids } of attempts) {
        const responses = await harness.warehouse.query<{ params: Record<string, unknown> }>(
          "select params from etl.responses where response_id = any($1::bigint[]) order by response_id",
          [response_ids],
        );
        const served = responses.flatMap(({ params }) =>
          endpointRecords(name, harness.upstream.sandbox.data, params),
        );
        const scope = Object.entries({
          ...output.scope(partition),
          ...(output.mode === "snapshot" ? { snapshot_date: TODAY } : {}),
        });
        const rows = await harness.warehouse.query<{ raw: unknown }>(
          `select raw from ${output.target.table}
            where ${scope.map(([column], i) => `${column} = $${i + 1}`).join(" and ") || "true"}`,
          scope.map(([, value]) => value),
        );
        const key = partition.key;
        expect(rows.map((row) => canonical(row.raw)).sort(), key).toEqual(
          served.map(canonical).sort(),
        );
        compared += served.length;
      }
      expect(compared).toBeGreaterThan(0);
    },
  );
});
