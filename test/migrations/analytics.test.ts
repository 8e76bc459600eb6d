import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CURATOR_PLATFORMS, EDITORIAL_PLATFORMS } from "../../src/api/enums.js";
import type { PlaylistEntry, SandboxDataset } from "../../sandbox/index.js";
import { utcToday } from "../../src/time/calendar.js";
import { daysBehind, streamOverviews } from "../../src/warehouse/stream-overview.js";
import type { SyncHarness } from "../helpers/sync-harness.js";
import { RANGE, startFilledWarehouse, TODAY } from "./filled-warehouse.js";

const VIEWS = [
  "artist_follower_growth",
  "asset_daily_streams",
  "assets",
  "daily_sales_by_dsp",
  "daily_sales_by_product",
  "daily_sales_by_territory",
  "join_paths",
  "monthly_sales_by_asset",
  "monthly_sales_by_dsp",
  "monthly_sales_by_product",
  "payouts_by_status",
  "playlist_reach",
  "products",
  "reading_checks",
  "run_history",
  "run_streams",
  "stream_freshness",
  "stream_missing_days",
  "weekly_sales",
];

let harness: SyncHarness;
let data: SandboxDataset;

beforeAll(async () => {
  harness = await startFilledWarehouse("bi_analytics");
  data = harness.upstream.sandbox.data;
});

afterAll(() => harness?.close());

function query<T extends Record<string, unknown>>(text: string, values?: unknown[]) {
  return harness.warehouse.query<T>(text, values);
}

/** The sandbox's streams and downloads of one day and selection type, by entity id as text. */
function sandboxSales(day: string, type: "dsp" | "territory" | "product" | "asset") {
  const sales = new Map<string, { streams: number; downloads: number }>();
  for (const [sale, field] of [
    ["stream", "streams"],
    ["download", "downloads"],
  ] as const) {
    for (const item of data.trendItems(day, type, sale)) {
      const entry = sales.get(String(item.id)) ?? { streams: 0, downloads: 0 };
      entry[field] += item.count;
      sales.set(String(item.id), entry);
    }
  }
  return sales;
}

const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);

describe("the analytics views", () => {
  it("are exactly the documented ones, each returning rows on a filled warehouse", async () => {
    const views = await query<{ name: string }>(
      "select table_name as name from information_schema.views where table_schema = 'analytics' order by 1",
    );
    expect(views.map((v) => v.name)).toEqual(VIEWS);
    for (const view of VIEWS) {
      const [row] = await query<{ n: number }>(`select count(*)::int as n from analytics.${view}`);
      expect(row?.n, view).toBeGreaterThan(0);
    }
  });

  it("daily_sales_by_dsp: a day's streams and downloads per DSP are the sandbox's, with the DSP's name", async () => {
    const day = "2026-01-02";
    const names = new Map(data.dsps().map((d) => [String(d.id), d.name]));
    const expected = [...sandboxSales(day, "dsp")]
      .map(([id, s]) => ({ id, name: names.get(id), ...s }))
      .sort(byId);
    const rows = await query<{ id: string; name: string; streams: string; downloads: string }>(
      `select dsp_id::text as id, dsp_name as name, streams, downloads
         from analytics.daily_sales_by_dsp where day = $1`,
      [day],
    );
    const actual = rows
      .map((r) => ({
        id: r.id,
        name: r.name,
        streams: Number(r.streams),
        downloads: Number(r.downloads),
      }))
      .sort(byId);
    expect(expected.length).toBeGreaterThan(5);
    expect(actual).toEqual(expected);
  });

  it("daily_sales_by_territory: a day's figures per country are the sandbox's, with the country's name", async () => {
    const day = "2026-01-03";
    const names = new Map(data.territories().map((t) => [t.code, t.name]));
    const expected = [...sandboxSales(day, "territory")]
      .map(([id, s]) => ({ id, name: names.get(id), ...s }))
      .sort(byId);
    expect(expected.length).toBeGreaterThan(0);
    const rows = await query<{ id: string; name: string; streams: string; downloads: string }>(
      `select territory_code as id, territory_name as name, streams, downloads
         from analytics.daily_sales_by_territory where day = $1`,
      [day],
    );
    expect(
      rows
        .map((r) => ({
          id: r.id,
          name: r.name,
          streams: Number(r.streams),
          downloads: Number(r.downloads),
        }))
        .sort(byId),
    ).toEqual(expected);
  });

  it("daily_sales_by_product: a day's figures per product are the sandbox's, with UPC and title", async () => {
    const day = "2026-01-04";
    const products = new Map(data.products().map((p) => [String(p.id), p]));
    const expected = [...sandboxSales(day, "product")]
      .map(([id, s]) => ({
        id,
        upc: products.get(id)?.upc,
        title: products.get(id)?.title,
        ...s,
      }))
      .sort(byId);
    expect(expected.length).toBeGreaterThan(0);
    const rows = await query<{
      id: string;
      upc: string;
      title: string;
      streams: string;
      downloads: string;
    }>(
      `select product_id::text as id, upc, title, streams, downloads
         from analytics.daily_sales_by_product where day = $1`,
      [day],
    );
    expect(
      rows
        .map((r) => ({ ...r, streams: Number(r.streams), downloads: Number(r.downloads) }))
        .sort(byId),
    ).toEqual(expected);
  });

  it("asset_daily_streams: per day and track the sandbox's figures, with ISRC, title and product; top-N over the range", async () => {
    const assets = new Map(
      data
        .products()
        .flatMap((p) => p.assets.map((a) => [String(a.id), { ...a, productId: p.id }] as const)),
    );
    const day = RANGE.from;
    const expected = [...sandboxSales(day, "asset")]
      .map(([id, s]) => ({
        id,
        isrc: assets.get(id)?.isrc,
        title: assets.get(id)?.title,
        product_id: String(assets.get(id)?.productId),
        ...s,
      }))
      .sort(byId);
    expect(expected.length).toBeGreaterThan(0);
    const rows = await query<{
      id: string;
      isrc: string;
      title: string;
      product_id: string;
      streams: string;
      downloads: string;
    }>(
      `select asset_id::text as id, isrc, title, product_id, streams, downloads
         from analytics.asset_daily_streams where day = $1`,
      [day],
    );
    expect(
      rows
        .map((r) => ({ ...r, streams: Number(r.streams), downloads: Number(r.downloads) }))
        .sort(byId),
    ).toEqual(expected);

    // The top track of the synced range, summed over its days, is the sandbox's.
    const totals = new Map<string, number>();
    for (const d of ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"]) {
      for (const [id, s] of sandboxSales(d, "asset")) {
        totals.set(id, (totals.get(id) ?? 0) + s.streams);
      }
    }
    const [topId, topStreams] = [...totals].sort((a, b) => b[1] - a[1])[0] ?? [];
    const [top] = await query<{ id: string; streams: string }>(
      `select asset_id::text as id, sum(streams) as streams from analytics.asset_daily_streams
        where day between $1 and $2 group by asset_id order by 2 desc limit 1`,
      [RANGE.from, RANGE.to],
    );
    expect(top).toEqual({ id: topId, streams: String(topStreams) });
  });

  it("monthly_sales_by_product and _by_asset: a month's figures per entity are the sum of the sandbox's days", async () => {
    for (const [selection, view, id] of [
      ["product", "monthly_sales_by_product", "product_id"],
      ["asset", "monthly_sales_by_asset", "asset_id"],
    ] as const) {
      const expected = new Map<string, { streams: number; downloads: number; days: number }>();
      for (const d of ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"]) {
        for (const [entity, s] of sandboxSales(d, selection)) {
          const sum = expected.get(entity) ?? { streams: 0, downloads: 0, days: 0 };
          expected.set(entity, {
            streams: sum.streams + s.streams,
            downloads: sum.downloads + s.downloads,
            days: sum.days + 1,
          });
        }
      }
      const rows = await query<{ id: string; streams: string; downloads: string; days: number }>(
        `select ${id}::text as id, streams, downloads, days_listed as days
           from analytics.${view} where month_start = '2026-01-01'`,
      );
      expect(expected.size).toBeGreaterThan(0);
      expect(
        new Map(
          rows.map((r) => [
            r.id,
            { streams: Number(r.streams), downloads: Number(r.downloads), days: r.days },
          ]),
        ),
      ).toEqual(expected);
    }
  });

  it("daily sales: the units and label read from the columns their roles resolved to; none readable is unknown, not 0", async () => {
    await query("begin");
    try {
      // As the loader stores them: a value its column cannot hold is null there (raw keeps it).
      await query(
        `insert into sales.trend_items (day, selection_type, sale_type, item_id, raw, name, count)
         values
           ('2025-12-31', 'dsp', 'stream', '424242', '{"id": 424242, "name": "Far", "count": "n/a"}', 'Far', null),
           ('2025-12-31', 'dsp', 'download', '424242', '{"id": 424242, "count": "12"}', null, 12),
           ('2025-12-31', 'dsp', 'stream', '424243', '{"id": 424243, "count": 7}', null, 7),
           ('2025-12-31', 'dsp', 'stream', '424244', '{"id": 424244, "count": 7.5}', null, null)`,
      );
      expect(
        await query(
          `select dsp_id, reported_name, streams, downloads from analytics.daily_sales_by_dsp
            where day = '2025-12-31' order by dsp_id`,
        ),
      ).toEqual([
        { dsp_id: "424242", reported_name: "Far", streams: null, downloads: "12" },
        { dsp_id: "424243", reported_name: null, streams: "7", downloads: "0" },
        { dsp_id: "424244", reported_name: null, streams: null, downloads: "0" },
      ]);
    } finally {
      await query("rollback");
    }
  });

  it("payouts_by_status: count and totals per status equal the sandbox's payouts, to the cent", async () => {
    const cents = (amount: string | number) => Math.round(Number(amount) * 100);
    const expected = new Map<
      string,
      { payouts: number; amount: number; fees: number; net: number }
    >();
    for (const p of data.payouts()) {
      const key = `${p.status} ${p.currency}`;
      const sum = expected.get(key) ?? { payouts: 0, amount: 0, fees: 0, net: 0 };
      sum.payouts += 1;
      sum.amount += cents(p.amount);
      sum.fees += cents(p.fees);
      sum.net += cents(p.net_amount);
      expected.set(key, sum);
    }
    const rows = await query<{
      key: string;
      payouts: string;
      total_amount: string;
      total_fees: string;
      total_net_amount: string;
    }>(
      `select status || ' ' || currency as key, payouts, total_amount, total_fees, total_net_amount
         from analytics.payouts_by_status`,
    );
    // Exact decimal text, two decimals: compare as integer cents.
    const actual = new Map(
      rows.map((r) => [
        r.key,
        {
          payouts: Number(r.payouts),
          amount: Number(r.total_amount.replace(".", "")),
          fees: Number(r.total_fees.replace(".", "")),
          net: Number(r.total_net_amount.replace(".", "")),
        },
      ]),
    );
    expect(rows.every((r) => /^\d+\.\d{2}$/.test(r.total_amount))).toBe(true);
    expect(expected.size).toBeGreaterThan(1);
    expect(actual).toEqual(expected);
  });

  it("artist_follower_growth: an artist's followers series and day-to-day change are the sandbox's", async () => {
    const [artist] = data.socialArtists();
    if (!artist) throw new Error("the sandbox has no social artist");
    const series = data.statSeries(
      artist.cm_artist,
      "music_streaming_1",
      "2026-01-01",
      "2026-01-30",
    );
    const points = series.metrics.followers ?? [];
    expect(points.length).toBe(30);
    const expected = points.map((p, i) => ({
      day: p.timestp.slice(0, 10),
      value: p.value,
      change: i === 0 ? null : p.value - (points[i - 1]?.value ?? 0),
    }));
    const rows = await query<{ day: string; value: string; change: string | null }>(
      `select day::text, value, change from analytics.artist_follower_growth
        where artist_id = $1 and source = 'music_streaming_1' and metric = 'followers' order by day`,
      [artist.cm_artist],
    );
    expect(
      rows.map((r) => ({
        day: r.day,
        value: Number(r.value),
        change: r.change === null ? null : Number(r.change),
      })),
    ).toEqual(expected);

    // A range filtered on day keeps its first day's change (computed before the filter).
    const [first] = await query<{ change: string | null }>(
      `select change from analytics.artist_follower_growth
        where artist_id = $1 and source = 'music_streaming_1' and metric = 'followers'
          and day = '2026-01-10'`,
      [artist.cm_artist],
    );
    expect(Number(first?.change)).toBe(expected[9]?.change);

    const metrics = await query<{ metric: string }>(
      "select distinct metric from analytics.artist_follower_growth order by 1",
    );
    expect(metrics.map((m) => m.metric)).toEqual(["fans", "followers", "likes", "subscribers"]);
  });

  it("artist_follower_growth: where the upstream reports no change, the change computed from the values, said", async () => {
    await query("begin");
    try {
      await query(
        `insert into artist_stats.platform_stats
           (artist_id, source, metric, day, value, raw, daily_diff) values
           (987654321, 'social_1', 'followers', '2026-01-01', 100, '{"value": 100, "daily_diff": null}', null),
           (987654321, 'social_1', 'followers', '2026-01-02', 130, '{"value": 130, "daily_diff": null}', null),
           (987654321, 'social_1', 'followers', '2026-01-03', 125, '{"value": 125, "daily_diff": -4}', -4)`,
      );
      expect(
        await query(
          `select day::text, change, reported_change, change_reported
             from analytics.artist_follower_growth where artist_id = 987654321 order by day`,
        ),
      ).toEqual([
        { day: "2026-01-01", change: null, reported_change: null, change_reported: false },
        { day: "2026-01-02", change: "30", reported_change: "30", change_reported: false },
        { day: "2026-01-03", change: "-5", reported_change: "-4", change_reported: true },
      ]);
    } finally {
      await query("rollback");
    }
  });

  it("artist_follower_growth and playlist_reach: every artist has the name the sandbox gives it", async () => {
    const names = new Map(data.socialArtists().map((a) => [String(a.cm_artist), a.name]));
    const named = (rows: { artist_id: string }[]) =>
      rows.map((r) => ({ artist_id: r.artist_id, name: names.get(r.artist_id) }));
    const tracked = await query<{ artist_id: string; name: string | null }>(
      "select artist_id::text, name from artist_stats.artists order by 1",
    );
    expect(tracked.length).toBeGreaterThan(1);
    expect(tracked).toEqual(named(tracked));
    for (const view of ["artist_follower_growth", "playlist_reach"]) {
      const rows = await query<{ artist_id: string; name: string | null }>(
        `select distinct artist_id::text, artist_name as name from analytics.${view} order by 1`,
      );
      expect(rows.length, view).toBeGreaterThan(0);
      expect(rows, view).toEqual(named(rows));
    }
  });

  it("playlist_reach: an artist's current placements, distinct playlists and their followers are the sandbox's", async () => {
    const [artist] = data.socialArtists();
    if (!artist) throw new Error("the sandbox has no social artist");
    const count = (kind: string, current: PlaylistEntry[], past: PlaylistEntry[]) => {
      const live = current.filter((e) => e.playlist.removed_at === null);
      const playlists = new Map(
        live.map((e) => [`${e.playlist.platform}|${e.playlist.id}`, e.playlist.followers]),
      );
      return {
        kind,
        placements: new Set(
          live.map((e) => `${e.playlist.platform}|${e.playlist.id}|${e.track.id}`),
        ).size,
        playlists: playlists.size,
        playlist_followers: [...playlists.values()].reduce((a, b) => a + b, 0),
        past_placements: past.length + current.length - live.length,
      };
    };
    const expected = [
      count(
        "curator",
        CURATOR_PLATFORMS.flatMap((p) => data.curatorPlaylists(artist.cm_artist, p)),
        [],
      ),
      count(
        "editorial",
        EDITORIAL_PLATFORMS.flatMap((p) => data.editorialPlaylists(artist.cm_artist, p, "current")),
        EDITORIAL_PLATFORMS.flatMap((p) => data.editorialPlaylists(artist.cm_artist, p, "past")),
      ),
    ];
    const rows = await query<Record<string, string>>(
      `select kind, placements, playlists, playlist_followers, past_placements
         from analytics.playlist_reach where artist_id = $1 and snapshot_date = $2 order by kind`,
      [artist.cm_artist, TODAY],
    );
    expect(
      rows.map((r) => ({
        kind: r.kind,
        placements: Number(r.placements),
        playlists: Number(r.playlists),
        playlist_followers: Number(r.playlist_followers),
        past_placements: Number(r.past_placements),
      })),
    ).toEqual(expected);
    expect(expected[1]?.placements).toBeGreaterThan(0);
  });

  it("stream_freshness: per stream what `etl status` shows, from the etl tables", async () => {
    const today = utcToday();
    const expected = (await streamOverviews(harness.warehouse.db)).map((s) => ({
      stream: s.stream,
      partitions: s.partitions,
      last_success_at: s.lastSuccessAt?.toISOString() ?? null,
      last_day: s.lastDay,
      days_behind: daysBehind(s, today),
      failed_partitions: s.failed.length,
      retrying_partitions: s.retrying,
    }));
    const rows = await query<{
      stream: string;
      partitions: number;
      last_success_at: Date | null;
      last_day: string | null;
      days_behind: number | null;
      failed_partitions: number;
      retrying_partitions: number;
    }>(
      `select stream, partitions, last_success_at, last_day::text, days_behind, failed_partitions,
              retrying_partitions
         from analytics.stream_freshness order by stream`,
    );
    expect(
      rows.map((r) => ({ ...r, last_success_at: r.last_success_at?.toISOString() ?? null })),
    ).toEqual(expected);
    const trends = rows.find((r) => r.stream === "trend_items");
    expect(trends?.last_day).toBe(RANGE.to);
  });
});

describe("on an empty warehouse", () => {
  it("every view answers, with no rows", async () => {
    await query("begin");
    try {
      await query(
        `truncate catalogue.products, catalogue.assets, catalogue.dsps, catalogue.territories,
                  sales.trend_items, artist_stats.platform_stats, artist_stats.playlist_placements,
                  royalties.payouts, royalties.payout_status_history, etl.stream_state,
                  etl.stream_settings, etl.runs, etl.attempts, etl.reading_checks cascade`,
      );
      // join_paths describes the schema, not data.
      for (const view of VIEWS.filter((name) => name !== "join_paths")) {
        const [row] = await query<{ n: number }>(
          `select count(*)::int as n from analytics.${view}`,
        );
        expect(row?.n, view).toBe(0);
      }
    } finally {
      await query("rollback");
    }
  });
});
