import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient } from "../../src/api/api-client.js";
import {
  AUDIENCE_DOMAINS,
  AUDIENCE_TYPES,
  CURATOR_PLATFORMS,
  EDITORIAL_PLATFORMS,
  PLAYLIST_STATUSES,
  STAT_SOURCES,
  STATS_TYPES,
} from "../../src/api/enums.js";
import { type EtlConfig, etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { endpointRecords, type SandboxDataset, type SocialArtist } from "../../sandbox/index.js";
import { artists as trackedArtists } from "../../src/streams/artist-stats/artists.js";
import { artistStatsStreams } from "../../src/streams/artist-stats/index.js";
import { playlistKey } from "../../src/streams/artist-stats/playlist-placements.js";
import type { DayRange } from "../../src/runner/plan/plan-partitions.js";
import { planRequests } from "../../src/runner/plan/request-plan.js";
import { runSync, type StreamSummary } from "../../src/runner/run-sync.js";
import type { Stream } from "../../src/streams/stream.js";
import { daysBetween } from "../../src/time/calendar.js";
import { type SyncHarness, startSyncHarness, failures } from "../helpers/sync-harness.js";

const TODAY = "2026-02-15";
const LATER = "2026-02-20";
// More than 365 days before yesterday: the first sync asks for each series in two windows.
const START = "2025-01-01";
const FROM = "2026-02-12";
const TO = "2026-02-14";
const CHARTS = [
  { country_code: "GLOBAL", genre: "All Genres" },
  { country_code: "US", genre: "Hip-Hop/Rap" },
];
const SIZE = { socialArtists: 3, playlistsPerArtist: 160, chartRows: 230 };

interface StatCall {
  readonly artist_id: number;
  readonly source: string;
  readonly since?: string;
  readonly until?: string;
}

/** A harness, the config naming the sandbox's artists, and a runner that records /stat windows. */
interface Fixture {
  readonly harness: SyncHarness;
  readonly config: EtlConfig;
  readonly statCalls: StatCall[];
  sync(today: string, streams?: readonly Stream[], range?: DayRange): Promise<StreamSummary[]>;
}

async function startFixture(
  label: string,
  options: Parameters<typeof startSyncHarness>[1],
  configFor: (artists: readonly SocialArtist[]) => Partial<Record<keyof EtlConfig, unknown>>,
): Promise<Fixture> {
  const harness = await startSyncHarness(label, options);
  const config = etlConfigSchema.parse({
    ...harness.config,
    ...configFor(harness.upstream.sandbox.data.socialArtists()),
  });
  const statCalls: StatCall[] = [];
  const real = harness.upstream.context.api;
  const api: ApiClient = {
    ...real,
    send: (operation, params, call) => {
      if (operation.name === "artistStats.stat") statCalls.push(params as StatCall);
      return real.send(operation, params, call);
    },
  };
  return {
    harness,
    config,
    statCalls,
    sync: (today, streams = artistStatsStreams, range = {}) =>
      runSync(
        { db: harness.warehouse.db, api, logger: harness.upstream.context.logger, config, today },
        streams,
        range,
      ),
  };
}

/** Links named catalogue artists to social ids, as the catalogue streams do earlier in a sync. */
async function linkCatalogueArtists(
  harness: SyncHarness,
  links: readonly (readonly [number, number | null, string | null])[],
): Promise<void> {
  for (const [artistId, socialArtistId, name] of links) {
    await harness.warehouse.query(
      "insert into catalogue.artists (artist_id, social_artist_id, name, raw) values ($1, $2, $3, '{}')",
      [artistId, socialArtistId, name],
    );
  }
}

/** Every point served for the artists' series, by `artist|source|metric|day`. */
function servedPoints(
  data: SandboxDataset,
  ids: readonly number[],
  since: string,
  until: string,
  metricName = (metric: string) => metric,
): Map<string, number> {
  return new Map(
    ids.flatMap((id) =>
      STAT_SOURCES.flatMap((source) =>
        Object.entries(data.statSeries(id, source, since, until).metrics).flatMap(
          ([metric, points]) =>
            points.map((p): [string, number] => [
              `${id}|${source}|${metricName(metric)}|${p.timestp.slice(0, 10)}`,
              p.value,
            ]),
        ),
      ),
    ),
  );
}

const POINT_KEY = "concat_ws('|', artist_id, source, metric, day) as key";

describe("artist statistics streams", () => {
  let fixture: Fixture;
  let harness: SyncHarness;
  let artists: readonly SocialArtist[];
  let first: StreamSummary[];
  const ids = () => artists.map((a) => a.cm_artist);
  const data = () => harness.upstream.sandbox.data;

  beforeAll(async () => {
    fixture = await startFixture(
      "artist_stats",
      { today: TODAY, sandbox: { size: SIZE }, etl: { start_date: START } },
      ([a, b]) => ({
        social_artist_ids: [a?.cm_artist],
        // b only through its streaming id; a also through it; the last id is unknown upstream.
        streaming_artist_ids: [
          b?.music_streaming_1,
          a?.music_streaming_1,
          "0123456789abcdefghijkl",
        ],
        charts: CHARTS,
      }),
    );
    harness = fixture.harness;
    artists = data().socialArtists();
    const [a, , c] = artists as [SocialArtist, SocialArtist, SocialArtist];
    // c only through the catalogue; a also; a catalogue artist without a social id is ignored.
    await linkCatalogueArtists(harness, [
      [c.artist_id ?? 900_001, c.cm_artist, c.name],
      [a.artist_id ?? 900_002, a.cm_artist, a.name],
      [900_003, null, "Nobody"],
    ]);
    first = await fixture.sync(TODAY, artistStatsStreams, { from: FROM, to: TO });
  });

  afterAll(() => harness.close());

  it("syncs every partition of every stream", () => {
    expect(failures(first)).toEqual([]);
    expect(first.map((s) => s.stream)).toEqual(artistStatsStreams.map((s) => s.name));
  });

  it("keys the series and chart partitions as etl.stream_state has always stored them", async () => {
    const stored = await harness.warehouse.query<{ stream: string; partition: string }>(
      `select stream, partition from etl.stream_state
        where stream in ('artist_stats_platform_stats', 'artist_stats_chart_entries')`,
    );
    const expected = [
      ...ids().flatMap((id) =>
        STAT_SOURCES.map((source) => `artist_stats_platform_stats ${id}|${source}`),
      ),
      ...daysBetween(FROM, TO).flatMap((day) =>
        CHARTS.map((c) => `artist_stats_chart_entries ${day}|${c.country_code}|${c.genre}`),
      ),
    ];
    expect(stored.map((r) => `${r.stream} ${r.partition}`).sort()).toEqual(expected.sort());
  });

  it("tracks each artist once, with every way it was found", async () => {
    const [a, b, c] = artists as [SocialArtist, SocialArtist, SocialArtist];
    const rows = await harness.warehouse.query(
      `select artist_id::int, found_via, streaming_artist_ids, catalogue_artist_ids::text[], name,
              raw
       from artist_stats.artists order by artist_id`,
    );
    const expected = [
      {
        artist_id: a.cm_artist,
        found_via: ["config", "streaming_id", "catalogue_artist"],
        streaming_artist_ids: [a.music_streaming_1],
        catalogue_artist_ids: [String(a.artist_id ?? 900_002)],
        name: a.name,
        raw: { [a.music_streaming_1]: { obj: [a] } },
      },
      {
        artist_id: b.cm_artist,
        found_via: ["streaming_id"],
        streaming_artist_ids: [b.music_streaming_1],
        catalogue_artist_ids: [],
        name: b.name,
        raw: { [b.music_streaming_1]: { obj: [b] } },
      },
      {
        artist_id: c.cm_artist,
        found_via: ["catalogue_artist"],
        streaming_artist_ids: [],
        catalogue_artist_ids: [String(c.artist_id ?? 900_001)],
        name: c.name,
        raw: {},
      },
    ].sort((x, y) => x.artist_id - y.artist_id);
    expect(rows).toEqual(JSON.parse(JSON.stringify(expected)));
    const quarantined = await harness.warehouse.query<{ reason: string; record: unknown }>(
      `select reason, record from etl.rejected_records where stream = 'artist_stats_artists'`,
    );
    expect(quarantined).toEqual([
      {
        reason: "no value for key column artist_id",
        record: { "0123456789abcdefghijkl": { obj: [] } },
      },
    ]);
  });

  it("asks for each series in windows of at most 365 days", () => {
    const windows = fixture.statCalls.map(
      (c) => `${c.artist_id}|${c.source}|${c.since}|${c.until}`,
    );
    const expected = ids().flatMap((id) =>
      STAT_SOURCES.flatMap((source) => [
        `${id}|${source}|${START}|2025-12-31`,
        `${id}|${source}|2026-01-01|2026-02-14`,
      ]),
    );
    expect(windows.sort()).toEqual(expected.sort());
  });

  it("stores every point of every series", async () => {
    const stored = await harness.warehouse.query<{ key: string; value: string }>(
      `select ${POINT_KEY}, value::float8 as value from artist_stats.platform_stats`,
    );
    const expected = servedPoints(data(), ids(), START, TO);
    expect(expected.size).toBeGreaterThan(10_000);
    expect(new Map(stored.map((r) => [r.key, r.value]))).toEqual(expected);
    expect(stored.length).toBe(expected.size);
  });

  it("keeps today's cm stats, audience and video market coverage", async () => {
    const cm = await harness.warehouse.query(
      "select artist_id::int, snapshot_date::text, name, cm_rank::int, raw from artist_stats.cm_stats order by 1",
    );
    expect(cm).toEqual(
      [...ids()]
        .sort((x, y) => x - y)
        .map((id) => {
          const stats = data().cmStats(id);
          return {
            artist_id: id,
            snapshot_date: TODAY,
            name: stats.name,
            cm_rank: stats.cm_rank,
            raw: stats,
          };
        }),
    );

    const audience = await harness.warehouse.query(
      `select artist_id::int, domain, snapshot_date::text, followers::float8, engagement_rate::float8, raw
       from artist_stats.audience_stats order by 1, 2`,
    );
    expect(audience).toEqual(
      [...ids()]
        .sort((x, y) => x - y)
        .flatMap((id) =>
          [...AUDIENCE_DOMAINS].sort().map((domain) => {
            const snapshot = data().audienceStats(id, domain);
            return {
              artist_id: id,
              domain,
              snapshot_date: TODAY,
              followers: snapshot.followers,
              engagement_rate: snapshot.engagement_rate,
              raw: snapshot,
            };
          }),
        ),
    );

    const coverage = await harness.warehouse.query(
      "select artist_id::int, snapshot_date::text, total_views::float8, raw from artist_stats.video_market_coverage order by 1",
    );
    expect(coverage).toEqual(
      [...ids()]
        .sort((x, y) => x - y)
        .map((id) => {
          const vmc = data().videoMarketCoverage(id);
          return { artist_id: id, snapshot_date: TODAY, total_views: vmc.total_views, raw: vmc };
        }),
    );
  });

  it("stores each artist's urls", async () => {
    for (const id of ids()) {
      const rows = await harness.warehouse.query(
        "select domain, url from artist_stats.urls where artist_id = $1 order by domain, url",
        [id],
      );
      const served = endpointRecords("urls", data(), { artist_id: id });
      const expected = (served as { domain: string; url: string }[])
        .map(({ domain, url }) => ({ domain, url }))
        .sort((x, y) => (x.domain < y.domain ? -1 : x.domain > y.domain ? 1 : 0));
      expect(rows, String(id)).toEqual(expected);
    }
  });

  it("stores every breakdown of the social audience, in the upstream's order", async () => {
    const rows = await harness.warehouse.query<Record<string, unknown>>(
      `select artist_id::int, domain, audience_type, stats_type, position, code, name,
              value::float8, percent::float8
       from artist_stats.social_audience_stats where snapshot_date = $1
       order by artist_id, domain, audience_type, stats_type, position`,
      [TODAY],
    );
    const expected = [...ids()]
      .sort((x, y) => x - y)
      .flatMap((id) =>
        [...AUDIENCE_DOMAINS].sort().flatMap((domain) =>
          [...AUDIENCE_TYPES].sort().flatMap((audienceType) =>
            [...STATS_TYPES].sort().flatMap((statsType) =>
              data()
                .socialAudienceStats(id, domain, audienceType, statsType, TODAY)
                .map((row, position) => ({
                  artist_id: id,
                  domain,
                  audience_type: audienceType,
                  stats_type: statsType,
                  position,
                  code: row.code,
                  name: row.name,
                  value: row.value,
                  percent: row.percent,
                })),
            ),
          ),
        ),
      );
    expect(rows).toEqual(expected);
  });

  it("stores every playlist placement, all pages, one row per playlist and track", async () => {
    const rows = await harness.warehouse.query<{ key: string; raw: unknown }>(
      `select concat_ws('|', artist_id, kind, platform, status, playlist_key) as key, raw
       from artist_stats.playlist_placements where snapshot_date = $1`,
      [TODAY],
    );
    const lists = ids().flatMap((id) => [
      ...EDITORIAL_PLATFORMS.flatMap((platform) =>
        PLAYLIST_STATUSES.map((status) => ({
          prefix: `${id}|editorial|${platform}|${status}`,
          entries: data().editorialPlaylists(id, platform, status),
        })),
      ),
      ...CURATOR_PLATFORMS.map((platform) => ({
        prefix: `${id}|curator|${platform}|all`,
        entries: data().curatorPlaylists(id, platform),
      })),
    ]);
    // Several lists need more than one page of 100.
    expect(lists.filter((l) => l.entries.length > 100).length).toBeGreaterThan(1);
    const expected = new Map(
      lists.flatMap(({ prefix, entries }) =>
        entries.map((e) => [`${prefix}|${e.playlist.id}|${e.track.id}`, e] as const),
      ),
    );
    expect(new Map(rows.map((r) => [r.key, r.raw]))).toEqual(expected);
    expect(rows.length).toBe(expected.size);
  });

  it("stores each day's radio rows in the upstream's order", async () => {
    for (const id of ids()) {
      for (const day of daysBetween(FROM, TO)) {
        const airplays = await harness.warehouse.query(
          `select position, station__name as station_name, track__isrc as isrc, plays::int, raw
             from artist_stats.radio_airplays
           where artist_id = $1 and snapshot_date = $2 order by position`,
          [id, day],
        );
        expect(airplays, `${id} ${day}`).toEqual(
          data()
            .radioAirplays(id, day)
            .map((r, position) => ({
              position,
              station_name: r.station.name,
              isrc: r.track.isrc,
              plays: r.plays,
              raw: r,
            })),
        );
        const spins = await harness.warehouse.query(
          `select position, station_name, spins::int, audience::int, raw from artist_stats.radio
           where artist_id = $1 and snapshot_date = $2 order by position`,
          [id, day],
        );
        expect(spins, `${id} ${day}`).toEqual(
          data()
            .radio(id, day)
            .map((r, position) => ({
              position,
              station_name: r.station_name,
              spins: r.spins,
              audience: r.audience,
              raw: r,
            })),
        );
      }
    }
    const [count] = await harness.warehouse.query<{ n: string }>(
      "select count(*) as n from artist_stats.radio_airplays",
    );
    expect(Number(count?.n)).toBeGreaterThan(0);
  });

  it("stores every entry of each followed chart, every day", async () => {
    for (const { country_code, genre } of CHARTS) {
      for (const day of daysBetween(FROM, TO)) {
        const rows = await harness.warehouse.query(
          `select rank, pre_rank::int, peak_rank::int, time_on_chart::int,
                  artist__cm_artist::int as artist_id, track__isrc as isrc
           from artist_stats.chart_entries
           where chart_date = $1 and country_code = $2 and genre = $3 order by rank`,
          [day, country_code, genre],
        );
        const chart = data().chart(country_code, genre, day);
        expect(chart.length).toBeGreaterThan(200); // two pages
        expect(rows, `${country_code} ${genre} ${day}`).toEqual(
          chart.map((r) => ({
            rank: r.rank,
            pre_rank: r.pre_rank,
            peak_rank: r.peak_rank,
            time_on_chart: r.time_on_chart,
            artist_id: r.artist.cm_artist,
            isrc: r.track.isrc,
          })),
        );
      }
    }
  });

  describe("a later run", () => {
    const [artistsStream, platformStats, cmStats, urls] = artistStatsStreams;
    let later: StreamSummary[];
    let stale: { artist: number };

    beforeAll(async () => {
      const [a] = artists as [SocialArtist];
      stale = { artist: a.cm_artist };
      await harness.warehouse.query(
        `insert into artist_stats.urls (artist_id, domain, url, raw)
         values ($1, 'website', 'https://gone.example/', '{}')`,
        [a.cm_artist],
      );
      fixture.statCalls.length = 0;
      later = await fixture.sync(LATER, [
        artistsStream,
        platformStats,
        cmStats,
        urls,
      ] as readonly Stream[]);
    });

    it("fetches each series only from its checkpoint minus lookback_days", async () => {
      expect(failures(later)).toEqual([]);
      expect(fixture.config.lookback_days).toBe(7);
      // The last sync reached 2026-02-14: 7 days before it, up to the day before the run.
      const windows = fixture.statCalls.map(
        (c) => `${c.artist_id}|${c.source}|${c.since}|${c.until}`,
      );
      expect(windows.sort()).toEqual(
        ids()
          .flatMap((id) => STAT_SOURCES.map((source) => `${id}|${source}|2026-02-07|2026-02-19`))
          .sort(),
      );
      const checkpoints = await harness.warehouse.query<{ checkpoint: unknown }>(
        "select distinct checkpoint from etl.stream_state where stream = 'artist_stats_platform_stats'",
      );
      expect(checkpoints).toEqual([{ checkpoint: { until: "2026-02-19" } }]);
    });

    it("adds the new points and rewrites none of the unchanged ones", async () => {
      // The sandbox's series end on its today (2026-02-15): one new point per series with data.
      const newPoints = servedPoints(data(), ids(), TODAY, TODAY).size;
      expect(newPoints).toBeGreaterThan(0);
      expect(later.find((s) => s.stream === platformStats?.name)?.rowsWritten).toBe(newPoints);
      const stored = await harness.warehouse.query<{ key: string; value: number }>(
        `select ${POINT_KEY}, value::float8 as value from artist_stats.platform_stats`,
      );
      expect(new Map(stored.map((r) => [r.key, r.value]))).toEqual(
        servedPoints(data(), ids(), START, TODAY),
      );
    });

    it("keeps one snapshot per run date", async () => {
      const rows = await harness.warehouse.query<{ snapshot_date: string; n: string }>(
        "select snapshot_date::text, count(*) as n from artist_stats.cm_stats group by 1 order by 1",
      );
      expect(rows).toEqual([
        { snapshot_date: TODAY, n: "3" },
        { snapshot_date: LATER, n: "3" },
      ]);
    });

    it("removes a url the upstream no longer lists", async () => {
      const rows = await harness.warehouse.query<{ url: string }>(
        "select url from artist_stats.urls where artist_id = $1 order by url",
        [stale.artist],
      );
      const served = endpointRecords("urls", data(), { artist_id: stale.artist });
      expect(rows.map((r) => r.url)).toEqual(
        (served as { url: string }[]).map((u) => u.url).sort(),
      );
      expect(rows.map((r) => r.url)).not.toContain("https://gone.example/");
    });
  });

  it("drops an artist no longer found any way, and keeps what was synced for it", async () => {
    const [a, b] = artists as [SocialArtist, SocialArtist];
    const [artistsStream] = artistStatsStreams;
    if (!artistsStream) throw new Error("no artists stream");
    const config = etlConfigSchema.parse({ ...fixture.config, streaming_artist_ids: [] });
    const deps = {
      db: harness.warehouse.db,
      api: harness.upstream.context.api,
      logger: harness.upstream.context.logger,
      config,
      today: LATER,
    };
    await runSync(deps, [artistsStream], {});
    const tracked = await harness.warehouse.query<{ artist_id: number; found_via: string[] }>(
      "select artist_id::int, found_via from artist_stats.artists order by artist_id",
    );
    expect(tracked.map((t) => t.artist_id)).not.toContain(b.cm_artist);
    expect(tracked.find((t) => t.artist_id === a.cm_artist)?.found_via).toEqual([
      "config",
      "catalogue_artist",
    ]);
    const [kept] = await harness.warehouse.query<{ n: number }>(
      "select count(*)::int as n from artist_stats.platform_stats where artist_id = $1",
      [b.cm_artist],
    );
    expect(kept?.n).toBeGreaterThan(0);
  });
});

describe("the tracked artists' names", () => {
  // Never a social artist's id: the sandbox's have four to seven digits.
  const UNKNOWN = 999;
  const NAMES_ASKED = "artistStats.cmStats";
  let fixture: Fixture;
  let harness: SyncHarness;
  let artists: readonly SocialArtist[];
  let synced: StreamSummary[];
  let asked: number;
  const namesAsked = () => harness.upstream.sandbox.stats().byOperation[NAMES_ASKED] ?? 0;
  const names = () =>
    harness.warehouse.query<{ artist_id: number; name: string | null }>(
      "select artist_id::int, name from artist_stats.artists order by artist_id",
    );

  beforeAll(async () => {
    fixture = await startFixture(
      "artist_names",
      { today: TODAY, sandbox: { size: { ...SIZE, socialArtists: 4 } } },
      ([a, , c]) => ({
        // a through its streaming id; c by its id alone; an id the statistics API does not know.
        social_artist_ids: [c?.cm_artist, UNKNOWN],
        streaming_artist_ids: [a?.music_streaming_1],
      }),
    );
    harness = fixture.harness;
    artists = harness.upstream.sandbox.data.socialArtists();
    const [a, b, , d] = artists as [SocialArtist, SocialArtist, SocialArtist, SocialArtist];
    // a also through a catalogue artist named otherwise; b through one naming it; d through one
    // without a name.
    await linkCatalogueArtists(harness, [
      [900_001, a.cm_artist, `${a.name} (catalogue)`],
      [900_002, b.cm_artist, b.name],
      [900_003, d.cm_artist, null],
    ]);
    const before = namesAsked();
    synced = await fixture.sync(TODAY, [trackedArtists]);
    asked = namesAsked() - before;
  });

  afterAll(() => harness.close());

  it("names each artist as the statistics API does, else as its catalogue artist does", async () => {
    expect(failures(synced)).toEqual([]);
    const [a, b, c, d] = artists as [SocialArtist, SocialArtist, SocialArtist, SocialArtist];
    expect(await names()).toEqual(
      [
        // Its /artist-id answer's name, before its catalogue artist's.
        { artist_id: a.cm_artist, name: a.name },
        { artist_id: b.cm_artist, name: b.name },
        // Its /cm-stats answer's name: no catalogue artist names c or d.
        { artist_id: c.cm_artist, name: c.name },
        { artist_id: d.cm_artist, name: d.name },
        // Tracked still, with no name: the statistics API answered 404.
        { artist_id: UNKNOWN, name: null },
      ].sort((x, y) => x.artist_id - y.artist_id),
    );
  });

  it("asks /cm-stats only for the artists no catalogue artist names, as many times as planned", async () => {
    // c, d and the unknown id; one /artist-id look-up besides.
    expect(asked).toBe(3);
    expect(synced[0]?.requests).toBe(4);
    const plan = await planRequests(
      { db: harness.warehouse.db, config: fixture.config, today: TODAY },
      [trackedArtists],
      {},
    );
    expect(plan.streams).toMatchObject([{ requests: 4, basis: { kind: "exact" } }]);
  });

  it("names them again in a replay, from the stored answers alone", async () => {
    const expected = await names();
    await harness.warehouse.query("update artist_stats.artists set name = null");
    const requests = harness.upstream.sandbox.stats().requests;
    const replayed = await harness.replay([trackedArtists]);
    expect(failures(replayed)).toEqual([]);
    expect(harness.upstream.sandbox.stats().requests).toBe(requests);
    expect(await names()).toEqual(expected);
  });
});

describe("artist statistics streams with a narrowed request plan", () => {
  let fixture: Fixture;
  let harness: SyncHarness;
  let summaries: StreamSummary[];
  const partitionsOf = (name: string) =>
    summaries.find((s) => s.stream === `artist_stats_${name}`)?.partitions;

  beforeAll(async () => {
    fixture = await startFixture(
      "artist_stats_plan",
      { today: TODAY, sandbox: { size: SIZE }, etl: { start_date: START } },
      (artists) => ({
        social_artist_ids: artists.map((a) => a.cm_artist),
        artist_stats: {
          stat_sources: ["social_1", "video_channel"],
          social_audience: { domains: ["video"], stats_types: ["country", "city"] },
          playlists: {
            editorial_platforms: ["video"],
            statuses: ["current"],
            curator_platforms: [],
          },
          radio_history_days: 2,
        },
      }),
    );
    harness = fixture.harness;
    summaries = await fixture.sync(TODAY, artistStatsStreams, { from: FROM, to: TO });
  });

  afterAll(() => harness.close());

  it("plans only the combinations asked for", () => {
    expect(failures(summaries)).toEqual([]);
    expect(partitionsOf("platform_stats")).toBe(3 * 2);
    expect(partitionsOf("social_audience_stats")).toBe(3 * AUDIENCE_TYPES.length * 2);
    expect(partitionsOf("playlist_placements")).toBe(3);
    // Three days asked for, the last two kept: 2026-02-13 and 2026-02-14.
    expect(partitionsOf("radio")).toBe(3 * 2);
    expect(partitionsOf("radio_airplays")).toBe(3 * 2);
  });

  it("stores exactly those combinations", async () => {
    const distinct = async (table: string, columns: string) =>
      (
        await harness.warehouse.query<{ value: string }>(
          `select distinct concat_ws('|', ${columns}) as value from artist_stats.${table} order by 1`,
        )
      ).map((row) => row.value);
    expect(await distinct("platform_stats", "source")).toEqual(["social_1", "video_channel"]);
    expect(await distinct("social_audience_stats", "domain, stats_type")).toEqual([
      "video|city",
      "video|country",
    ]);
    expect(await distinct("playlist_placements", "kind, platform, status")).toEqual([
      "editorial|video|current",
    ]);
    expect(await distinct("radio", "snapshot_date")).toEqual(["2026-02-13", "2026-02-14"]);
  });
});

describe("artist statistics streams against a drifting upstream", () => {
  const DAY = "2026-02-14";
  let fixture: Fixture;
  let harness: SyncHarness;
  let summaries: StreamSummary[];

  beforeAll(async () => {
    fixture = await startFixture(
      "artist_stats_drift",
      {
        today: TODAY,
        sandbox: {
          size: SIZE,
          knobs: {
            drift: { extraFields: true, numbersAsStrings: true, nulls: true, renamedEnum: true },
          },
        },
        etl: { start_date: "2026-01-15" },
      },
      (artists) => ({
        social_artist_ids: artists.slice(1).map((a) => a.cm_artist),
        streaming_artist_ids: artists.slice(0, 1).map((a) => a.music_streaming_1),
        charts: CHARTS.slice(0, 1),
      }),
    );
    harness = fixture.harness;
    // catalogue.artists is left empty: no artist is found that way, and nothing fails.
    summaries = await fixture.sync(TODAY, artistStatsStreams, { from: DAY, to: DAY });
  });

  afterAll(() => harness.close());

  it("completes every partition", () => {
    expect(failures(summaries)).toEqual([]);
    expect(summaries.every((s) => s.partitions > 0)).toBe(true);
  });

  it("keeps the raw records with their unexpected fields in every table", async () => {
    for (const table of [
      "platform_stats",
      "cm_stats",
      "urls",
      "audience_stats",
      "social_audience_stats",
      "video_market_coverage",
      "playlist_placements",
      "radio_airplays",
      "radio",
      "chart_entries",
    ]) {
      const [counts] = await harness.warehouse.query<{ n: string; drifted: string }>(
        `select count(*) as n, count(*) filter (where raw ? 'x_unexpected') as drifted
         from artist_stats.${table}`,
      );
      expect(Number(counts?.n), table).toBeGreaterThan(0);
      expect(counts?.drifted, table).toBe(counts?.n);
    }
    const tracked = await harness.warehouse.query<{ n: string }>(
      "select count(*) as n from artist_stats.artists where raw::text like '%x_unexpected%'",
    );
    expect(tracked).toEqual([{ n: "1" }]);
  });

  it("names every tracked artist from the drifted answers", async () => {
    const names = await harness.warehouse.query(
      "select artist_id::int, name from artist_stats.artists order by artist_id",
    );
    expect(names).toEqual(
      harness.upstream.sandbox.data
        .socialArtists()
        .map((a) => ({ artist_id: a.cm_artist, name: a.name }))
        .sort((x, y) => x.artist_id - y.artist_id),
    );
  });

  it("reads numbers sent as strings, stores nulls as null and a renamed metric under its new name", async () => {
    const data = harness.upstream.sandbox.data;
    const ids = data.socialArtists().map((a) => a.cm_artist);
    const stored = await harness.warehouse.query<{ key: string; value: number | null }>(
      `select ${POINT_KEY}, value::float8 as value from artist_stats.platform_stats`,
    );
    const expected = servedPoints(data, ids, "2026-01-15", DAY, (metric) =>
      metric === "listeners" ? "monthly_listeners" : metric,
    );
    expect(stored.length).toBe(expected.size);
    expect(stored.filter((r) => r.value === null).length).toBeGreaterThan(0);
    for (const row of stored.filter((r) => r.value !== null)) {
      expect(row.value, row.key).toBe(expected.get(row.key));
    }
    expect(stored.some((r) => r.key.includes("|monthly_listeners|"))).toBe(true);

    const chart = await harness.warehouse.query(
      "select rank, artist__cm_artist::int as artist_id from artist_stats.chart_entries order by rank",
    );
    expect(chart).toEqual(
      data
        .chart("GLOBAL", "All Genres", DAY)
        .map((r) => ({ rank: r.rank, artist_id: r.artist.cm_artist })),
    );
  });
});

describe("playlistKey", () => {
  it("tells apart the tracks of one playlist, by track id or else ISRC", () => {
    const entry = (track: Record<string, unknown>) => ({ playlist: { id: "p1" }, track });
    expect(playlistKey(entry({ id: "t1", isrc: "GBAAA2600001" }))).toBe("p1|t1");
    expect(playlistKey(entry({ id: "t2", isrc: "GBAAA2600001" }))).toBe("p1|t2");
    expect(playlistKey(entry({ id: null, isrc: "GBAAA2600001" }))).toBe("p1|GBAAA2600001");
    expect(playlistKey({ playlist: { id: 42 }, track: { id: 7 } })).toBe("42|7");
    expect(playlistKey(entry({}))).toBeNull();
    expect(playlistKey({ track: { id: "t1" } })).toBeNull();
  });
});
