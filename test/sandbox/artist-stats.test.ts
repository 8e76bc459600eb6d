import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  ChartRow,
  PlaylistEntry,
  Sandbox,
  SocialArtist,
  StatPoint,
} from "../../sandbox/index.js";
import { endpointRecords, startSandbox } from "../../sandbox/index.js";
import { call, ok, wire } from "./call.js";

const STATS = "/api/v1/artist-stats";

/** Every page of an {obj: [...]} list paged with offset and limit, until a short page. */
async function allRows<T>(sandbox: Sandbox, path: string, limit: number): Promise<T[]> {
  const rows: T[] = [];
  for (let offset = 0; ; offset += limit) {
    const { obj } = await ok<{ obj: T[] }>(sandbox, `${path}&offset=${offset}&limit=${limit}`);
    rows.push(...obj);
    if (obj.length < limit) return rows;
  }
}

describe("sandbox artist statistics", () => {
  let sandbox: Sandbox;
  let artist: SocialArtist;

  /** An artist that has data on the source (some sources are empty for some artists). */
  function artistWithData(source: string): number {
    const found = sandbox.data
      .socialArtists()
      .find(
        (social) =>
          sandbox.data.statSeries(social.cm_artist, source, "2026-01-01", "2026-01-01").link,
      );
    if (!found) throw new Error(`no artist with ${source} data`);
    return found.cm_artist;
  }

  beforeAll(async () => {
    sandbox = await startSandbox({ today: "2026-02-15" });
    const first = sandbox.data.socialArtists().find((candidate) => candidate.artist_id !== null);
    if (!first) throw new Error("no linked social artist");
    artist = first;
  });
  afterAll(() => sandbox.close());

  it("has social artists with integer cm_artist ids, 22-character platform ids and some catalogue links", () => {
    const artists = sandbox.data.socialArtists();
    expect(artists).toHaveLength(8);
    for (const candidate of artists) {
      expect(String(candidate.cm_artist)).toMatch(/^[1-9]\d{3,6}$/);
      expect(candidate.music_streaming_1).toMatch(/^[0-9A-Za-z]{22}$/);
    }
    const catalogueIds = new Set(sandbox.data.artists().map((catalogue) => catalogue.id));
    const linked = artists.filter((candidate) => candidate.artist_id !== null);
    expect(linked.length).toBeGreaterThan(0);
    for (const candidate of linked) expect(catalogueIds.has(candidate.artist_id ?? -1)).toBe(true);
    expect(catalogueIds.size).toBeGreaterThan(linked.length);
  });

  it("looks artists up by platform id and by catalogue id", async () => {
    const byPlatform = await ok(sandbox, `${STATS}/artist-id?id=${artist.music_streaming_1}`);
    expect(byPlatform).toEqual({ obj: [wire(artist)] });
    expect(await ok(sandbox, `${STATS}/artist-id?id=unknown`)).toEqual({ obj: [] });
    const byCatalogue = await ok(
      sandbox,
      `${STATS}/artist-id-from-identifiers?artist_id=${artist.artist_id}`,
    );
    expect(byCatalogue).toEqual({ obj: wire(artist) });
    const unlinked = sandbox.data
      .artists()
      .find((catalogue) =>
        sandbox.data.socialArtists().every((social) => social.artist_id !== catalogue.id),
      );
    expect(
      await ok(sandbox, `${STATS}/artist-id-from-identifiers?artist_id=${unlinked?.id}`),
    ).toEqual({ obj: null });
  });

  it("serves one point per day of a stat window, values never decreasing", async () => {
    const id = artistWithData("music_streaming_1");
    const path = `${STATS}/stat/music_streaming_1?artist_id=${id}&since=2026-01-01&until=2026-01-31`;
    const { obj } = await ok<{ obj: Record<string, unknown> }>(sandbox, path);
    const series = sandbox.data.statSeries(id, "music_streaming_1", "2026-01-01", "2026-01-31");
    expect(obj).toEqual(wire({ link: series.link, ...series.metrics }));
    for (const metric of ["followers", "popularity", "listeners"]) {
      const points = obj[metric] as StatPoint[];
      expect(points).toHaveLength(31);
      expect(points[0]?.timestp).toBe("2026-01-01T00:00:00.000Z");
      expect(points[30]?.timestp).toBe("2026-01-31T00:00:00.000Z");
      for (let i = 1; i < points.length; i++) {
        const [before, after] = [points[i - 1], points[i]];
        expect(after?.value).toBeGreaterThanOrEqual(before?.value ?? 0);
        expect(after?.daily_diff).toBe((after?.value ?? 0) - (before?.value ?? 0));
      }
    }
  });

  it("defaults the window to the last 30 days up to today and never serves the future", async () => {
    const id = artistWithData("social_3");
    const { obj } = await ok<{ obj: { followers: StatPoint[] } }>(
      sandbox,
      `${STATS}/stat/social_3?artist_id=${id}`,
    );
    const series = sandbox.data.statSeries(id, "social_3", "2026-01-16", "2026-02-15");
    expect(obj.followers).toEqual(series.metrics.followers);
    expect(obj.followers).toHaveLength(31);
    expect(obj.followers.at(-1)?.timestp).toBe("2026-02-15T00:00:00.000Z");
    const future = await ok<{ obj: { followers: StatPoint[] } }>(
      sandbox,
      `${STATS}/stat/social_3?artist_id=${id}&since=2026-02-10&until=2026-03-10`,
    );
    expect(future.obj.followers).toHaveLength(6);
    expect(future.obj.followers.at(-1)?.timestp).toBe("2026-02-15T00:00:00.000Z");
  });

  it("answers empty arrays for some sources of some artists", () => {
    const sources = [
      "music_streaming_1",
      "music_streaming_2",
      "social_1",
      "social_2",
      "social_3",
      "video_channel",
      "video_artist",
      "encyclopedia",
      "concerts",
      "audio_sharing",
      "short_video",
      "live_streaming",
    ];
    const series = sandbox.data
      .socialArtists()
      .flatMap((social) =>
        sources.map((source) =>
          sandbox.data.statSeries(social.cm_artist, source, "2026-02-01", "2026-02-02"),
        ),
      );
    const empty = series.filter((one) =>
      Object.values(one.metrics).every((points) => points.length === 0),
    );
    expect(empty.length).toBeGreaterThan(0);
    expect(empty.length).toBeLessThan(series.length);
  });

  it.each([
    ["a window over 365 days", `stat/social_1?artist_id=ID&since=2024-01-01&until=2026-01-01`, 400],
    ["since after until", `stat/social_1?artist_id=ID&since=2026-01-10&until=2026-01-01`, 422],
    ["a bad date", `stat/social_1?artist_id=ID&since=2026/01/01`, 422],
    ["an unknown source", `stat/radio_9?artist_id=ID`, 422],
    ["a non-integer artist_id", `cm-stats?artist_id=12a`, 422],
    ["a missing artist_id", `urls`, 422],
    ["an unknown artist", `urls?artist_id=1`, 404],
    ["an unknown platform", `editorial-playlists?artist_id=ID&platform=radio`, 422],
    ["an unknown status", `editorial-playlists?artist_id=ID&status=future`, 422],
    ["a limit above 100", `curator-playlists?artist_id=ID&limit=101`, 422],
    ["an unknown statsType", `social-audience-stats?artist_id=ID&statsType=shoe_size`, 422],
    ["an unknown chart country", `charts?country_code=XX`, 422],
    ["an unknown genre", `charts?genre=Polka`, 422],
    ["a bad radio date", `radio?artist_id=ID&date=yesterday`, 422],
  ])("refuses %s", async (_, path, status) => {
    const result = await call(sandbox, `${STATS}/${path.replace("ID", String(artist.cm_artist))}`);
    expect(result.status).toBe(status);
    expect(result.json).toMatchObject({ message: expect.any(String) });
    if (status === 422) expect(result.json).toMatchObject({ errors: expect.any(Object) });
  });

  it("serves cm-stats, urls and the three audience snapshots wrapped in obj", async () => {
    const id = artist.cm_artist;
    expect(await ok(sandbox, `${STATS}/cm-stats?artist_id=${id}`)).toEqual({
      obj: wire(sandbox.data.cmStats(id)),
    });
    const urls = await ok<{ obj: { domain: string; url: string }[] }>(
      sandbox,
      `${STATS}/urls?artist_id=${id}`,
    );
    expect(urls.obj).toEqual(endpointRecords("urls", sandbox.data, { artist_id: id }));
    expect(urls.obj.every((url) => url.url.startsWith("https://"))).toBe(true);
    for (const [path, domain] of [
      ["social_3-audience-stats", "social_3"],
      ["short_video-audience-stats", "short_video"],
      ["video-audience-stats", "video"],
    ] as const) {
      const { obj } = await ok<{ obj: Record<string, unknown> }>(
        sandbox,
        `${STATS}/${path}?artist_id=${id}`,
      );
      expect(obj).toEqual(wire(sandbox.data.audienceStats(id, domain)));
      expect(obj.engagement_rate).toBeLessThan(1);
      expect(obj.top_countries).toContainEqual({
        code: expect.stringMatching(/^[A-Z]{2}$/),
        name: expect.any(String),
        followers: expect.any(Number),
        percent: expect.any(Number),
      });
    }
    const coverage = await ok(sandbox, `${STATS}/video-market-coverage?artist_id=${id}`);
    expect(coverage).toEqual({ obj: wire(sandbox.data.videoMarketCoverage(id)) });
  });

  it("pages social audience rows (default limit 10) to the dataset's rows", async () => {
    const path = `${STATS}/social-audience-stats?artist_id=${artist.cm_artist}&domain=video&audienceType=likes&statsType=country`;
    const firstPage = await ok<{ obj: unknown[] }>(sandbox, path);
    expect(firstPage.obj).toHaveLength(10);
    const rows = await allRows(sandbox, path, 7);
    expect(rows).toEqual(
      wire(
        sandbox.data.socialAudienceStats(
          artist.cm_artist,
          "video",
          "likes",
          "country",
          "2026-02-15",
        ),
      ),
    );
  });

  it("pages editorial playlists per platform and status, and filters them by added date", async () => {
    const id = artist.cm_artist;
    const current = await allRows<PlaylistEntry>(
      sandbox,
      `${STATS}/editorial-playlists?artist_id=${id}&platform=music_streaming_2`,
      13,
    );
    expect(current).toEqual(
      wire(sandbox.data.editorialPlaylists(id, "music_streaming_2", "current")),
    );
    expect(current.length).toBeGreaterThan(13);
    for (const entry of current) {
      expect(entry.playlist.editorial).toBe(true);
      expect(entry.playlist.removed_at).toBeNull();
      expect(entry.track.isrc).toMatch(/^[A-Z]{2}[A-Z0-9]{3}\d{7}$/);
    }
    const catalogueIsrcs = new Set(
      sandbox.data.products().flatMap((product) => product.assets.map((asset) => asset.isrc)),
    );
    const ownProducts = sandbox.data
      .products()
      .some((product) => product.artist_id === artist.artist_id);
    if (ownProducts)
      expect(current.every((entry) => catalogueIsrcs.has(entry.track.isrc))).toBe(true);
    const past = sandbox.data.editorialPlaylists(id, "music_streaming_1", "past");
    expect(past.every((entry) => entry.playlist.removed_at !== null)).toBe(true);
    const since = "2026-01-01";
    const filtered = await allRows<PlaylistEntry>(
      sandbox,
      `${STATS}/editorial-playlists?artist_id=${id}&since=${since}`,
      100,
    );
    const expected = sandbox.data
      .editorialPlaylists(id, "music_streaming_1", "current")
      .filter((entry) => entry.playlist.added_at >= since);
    expect(filtered).toEqual(wire(expected));
  });

  it("varies playlist counts per artist up to playlistsPerArtist", () => {
    const counts = sandbox.data
      .socialArtists()
      .map(
        (social) =>
          sandbox.data.editorialPlaylists(social.cm_artist, "music_streaming_1", "current").length,
      );
    expect(Math.max(...counts)).toBeLessThanOrEqual(120);
    expect(new Set(counts).size).toBeGreaterThan(1);
  });

  it("pages curator playlists (not editorial)", async () => {
    const id = artist.cm_artist;
    const rows = await allRows<PlaylistEntry>(
      sandbox,
      `${STATS}/curator-playlists?artist_id=${id}&platform=music_streaming_3`,
      20,
    );
    expect(rows).toEqual(wire(sandbox.data.curatorPlaylists(id, "music_streaming_3")));
    expect(rows.every((entry) => entry.playlist.editorial === false)).toBe(true);
  });

  it("serves radio rows of one day, today by default", async () => {
    const id = artist.cm_artist;
    expect(await ok(sandbox, `${STATS}/radio-airplays?artist_id=${id}&date=2026-02-01`)).toEqual({
      obj: wire(sandbox.data.radioAirplays(id, "2026-02-01")),
    });
    expect(await ok(sandbox, `${STATS}/radio?artist_id=${id}`)).toEqual({
      obj: wire(sandbox.data.radio(id, "2026-02-15")),
    });
  });

  it("pages charts (default limit 100) wrapped as {obj: {length, data}}", async () => {
    const chart = sandbox.data.chart("GLOBAL", "All Genres", "2026-02-15");
    expect(chart).toHaveLength(150);
    const first = await ok<{ obj: { length: number; data: ChartRow[] } }>(
      sandbox,
      `${STATS}/charts`,
    );
    expect(first.obj.length).toBe(150);
    expect(first.obj.data).toEqual(wire(chart.slice(0, 100)));
    const second = await ok<{ obj: { data: ChartRow[] } }>(sandbox, `${STATS}/charts?offset=100`);
    expect(second.obj.data).toEqual(wire(chart.slice(100)));
    expect(chart.map((row) => row.rank)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    for (const row of chart) expect(row.peak_rank).toBeLessThanOrEqual(row.rank);
  });

  it("keeps chart history consistent from one day to the next", () => {
    const yesterday = sandbox.data.chart("FR", "Pop", "2026-02-10");
    const today = sandbox.data.chart("FR", "Pop", "2026-02-11");
    const key = (row: ChartRow) => `${row.track.isrc}|${row.track.name}`;
    const before = new Map(yesterday.map((row) => [key(row), row]));
    let carried = 0;
    for (const row of today) {
      const previous = before.get(key(row));
      expect(row.pre_rank).toBe(previous?.rank ?? null);
      if (previous) {
        carried++;
        expect(row.time_on_chart).toBe(previous.time_on_chart + 1);
        expect(row.peak_rank).toBe(Math.min(previous.peak_rank, row.rank));
      }
    }
    expect(carried).toBeGreaterThan(50);
  });

  it("can answer charts as {obj: [...]}, and has no chart for days after today", async () => {
    sandbox.setKnobs({ chartsShape: "array" });
    try {
      const path = `${STATS}/charts?country_code=JP&genre=${encodeURIComponent("Hip-Hop/Rap")}&date=2026-02-01&limit=200`;
      expect(await ok(sandbox, path)).toEqual({
        obj: wire(sandbox.data.chart("JP", "Hip-Hop/Rap", "2026-02-01")),
      });
      expect(await ok(sandbox, `${STATS}/charts?date=2026-03-01`)).toEqual({ obj: [] });
    } finally {
      sandbox.setKnobs({ chartsShape: "wrapped" });
    }
  });
});
