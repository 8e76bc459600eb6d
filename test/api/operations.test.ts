import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApiClient } from "../../src/api/api-client.js";
import { recordsOf } from "../../src/api/list-page.js";
import { toDecimal, toInteger, toText } from "../../src/api/read-values.js";
import { asRecord } from "../../src/json/json-record.js";
import { ParameterError } from "../../src/errors.js";
import { endpointRecords, type SandboxDataset } from "../../sandbox/index.js";
import { urlsOperation } from "../../src/streams/artist-stats/urls.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";
import {
  artistIdFromIdentifiersOperation,
  artistIdOperation,
} from "../../src/streams/artist-stats/artist-id-lookup.js";
import { AUDIENCE_OPERATIONS } from "../../src/streams/artist-stats/audience-stats.js";
import { chartsOperation } from "../../src/streams/artist-stats/chart-entries.js";
import { cmStatsOperation } from "../../src/streams/artist-stats/cm-stats.js";
import { statOperation } from "../../src/streams/artist-stats/platform-stats.js";
import { PLACEMENT_OPERATIONS } from "../../src/streams/artist-stats/playlist-placements.js";
import { radioAirplaysOperation } from "../../src/streams/artist-stats/radio-airplays.js";
import { radioOperation } from "../../src/streams/artist-stats/radio.js";
import { socialAudienceStatsOperation } from "../../src/streams/artist-stats/social-audience-stats.js";
import { videoMarketCoverageOperation } from "../../src/streams/artist-stats/video-market-coverage.js";
import { getArtistByNameOperation } from "../../src/streams/catalogue/artists.js";
import { getDspsOperation } from "../../src/streams/catalogue/dsps.js";
import { getProductByUpcOperation } from "../../src/streams/catalogue/products.js";
import { getTerritoriesOperation } from "../../src/streams/catalogue/territories.js";
import { listIncomesOperation } from "../../src/streams/royalties/incomes.js";
import { getInvoiceOperation } from "../../src/streams/royalties/invoices.js";
import {
  requestPayoutOperation,
  setMonthlyTypeOperation,
  setThresholdOperation,
} from "../../src/streams/royalties/payout-writes.js";
import {
  listPayoutsOperation,
  listPendingPayoutsOperation,
  toPayout,
} from "../../src/streams/royalties/payouts.js";
import { getTrendsChartOperation } from "../../src/streams/trends/trend-chart-points.js";
import { getTrendsListOperation } from "../../src/streams/trends/trend-items.js";
import { getTrendsTotalOperation } from "../../src/streams/trends/trend-totals.js";

let upstream: Upstream;
let api: ApiClient;
let data: SandboxDataset;

beforeAll(async () => {
  upstream = await startUpstream("operations", { sandbox: { today: "2026-01-31" } });
  api = upstream.context.api;
  data = upstream.sandbox.data;
});

afterAll(() => upstream.close());

beforeEach(() => {
  upstream.sandbox.setKnobs({
    listShape: "array",
    royaltiesShape: "wrapped",
    chartsShape: "wrapped",
  });
});

/** Pages with offset/limit until a short page, as the streams will. */
async function allPages<T>(
  fetchPage: (offset: number, limit: number) => Promise<readonly T[]>,
  limit: number,
) {
  const all: T[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await fetchPage(offset, limit);
    all.push(...page);
    if (page.length < limit) return all;
  }
}

describe("catalogue", () => {
  it("finds a product by UPC with its assets and their ISRCs", async () => {
    const product = data.products()[7];
    if (!product) throw new Error("dataset too small");
    const page = await api.call(getProductByUpcOperation, { upc: product.upc });
    const found = page.records.find((p) => p.id === product.id);
    expect(found?.upc).toBe(product.upc);
    expect(recordsOf(found?.assets).map((a) => [a.id, a.isrc])).toEqual(
      product.assets.map((a) => [a.id, a.isrc]),
    );
    expect(found).toMatchObject({ title: product.title });
    expect(page.list.total).toBe(page.records.length);
  });

  it("pages a broad product search with page and page_size", async () => {
    const search = data.products()[0]?.upc.slice(0, 2) ?? "";
    const expected = data.products().filter((p) => p.upc.includes(search));
    const pages = await allPages(
      async (offset, limit) =>
        (
          await api.call(getProductByUpcOperation, {
            upc: search,
            page: offset / limit,
            page_size: limit,
          })
        ).records,
      10,
    );
    expect(expected.length).toBeGreaterThan(10);
    expect(pages.map((p) => p.id)).toEqual(expected.map((p) => p.id));
  });

  it("finds artists by name, paged", async () => {
    const expected = data.artists().filter((a) => a.name.toLowerCase().includes("a"));
    const found = await allPages(
      async (offset, limit) =>
        (
          await api.call(getArtistByNameOperation, {
            name: "a",
            page: offset / limit,
            page_size: limit,
          })
        ).records,
      25,
    );
    expect(found.map((a) => [a.id, a.name, a.organization_id, a.proprietary_id])).toEqual(
      expected.map((a) => [a.id, a.name, a.organization_id, a.proprietary_id]),
    );
  });

  it("lists territories and DSPs", async () => {
    const territories = await api.call(getTerritoriesOperation, { key: "all" });
    expect(territories.records.map((t) => [t.id, t.code, t.name])).toEqual(
      data.territories().map((t) => [t.id, t.code, t.name]),
    );
    const dsps = await api.call(getDspsOperation, { key: "all" });
    expect(dsps.records.map((d) => [d.id, d.name, d.code, d.state])).toEqual(
      data.dsps().map((d) => [d.id, d.name, d.code, d.state]),
    );
  });
});

describe("sales trends (GET with a JSON body)", () => {
  const range = { start: "2026-01-03", end: "2026-01-05" };

  it("reads totals for a date range", async () => {
    const totals = await api.call(getTrendsTotalOperation, {
      selection_type: "dsp",
      start_date: range.start,
      end_date: range.end,
    });
    const expected = data.trendTotals(range.start, range.end, "dsp");
    const read = asRecord(totals.data) ?? {};
    expect([
      toInteger(read.stream_count),
      toInteger(read.download_count),
      toDecimal(read.stream_percentage),
      toDecimal(read.download_percentage),
    ]).toEqual([
      expected.stream_count,
      expected.download_count,
      String(expected.stream_percentage),
      String(expected.download_percentage),
    ]);
  });

  it.each(["array", "object"] as const)(
    "pages the whole list when it comes as %s",
    async (shape) => {
      upstream.sandbox.setKnobs({ listShape: shape });
      const expected = data.trendList(range.start, range.end, "asset", "stream");
      const items = await allPages(
        async (offset, size) =>
          (
            await api.call(getTrendsListOperation, {
              selection_type: "asset",
              sale_type: "stream",
              start_date: `${range.start}T00:00:00`,
              end_date: `${range.end}T23:59:59`,
              offset,
              size,
            })
          ).records,
        50,
      );
      expect(expected.length).toBeGreaterThan(100);
      expect(items.map((i) => [toText(i.id), i.name, i.count, toDecimal(i.percentage)])).toEqual(
        expected.map((i) => [String(i.id), i.name, i.count, String(i.percentage)]),
      );
    },
  );

  it("reads the chart: one step per day, a Total series and the top entities", async () => {
    const chart = await api.call(getTrendsChartOperation, {
      selection_type: "territory",
      sale_type: "download",
      start_date: `${range.start}T00:00:00`,
      end_date: `${range.end}T23:59:59`,
    });
    const expected = data.trendChart(range.start, range.end, "territory", "download");
    expect(chart.groups).toEqual(expected.groups);
    expect(chart.series.map((s) => [s.name, s.totals])).toEqual(
      expected.data.map((s) => [s.name, s.totals]),
    );
    expect(chart.series[0]?.totals).toHaveLength(3);
  });
});

describe("artist statistics", () => {
  const artist = () => {
    const found = data.socialArtists().find((a) => a.artist_id !== null);
    if (!found) throw new Error("no social artist linked to the catalogue");
    return found;
  };

  it("resolves social ids from a streaming id and from a catalogue artist id", async () => {
    const a = artist();
    expect((await api.call(artistIdOperation, { id: a.music_streaming_1 })).socialArtistId).toBe(
      a.cm_artist,
    );
    expect(
      (await api.call(artistIdFromIdentifiersOperation, { artist_id: a.artist_id ?? 0 }))
        .socialArtistId,
    ).toBe(a.cm_artist);
    expect(
      (await api.call(artistIdOperation, { id: "unknown-streaming-id" })).socialArtistId,
    ).toBeNull();
  });

  it("reads every metric of a /stat source as dated points", async () => {
    const a = artist();
    const series = await api.call(statOperation, {
      source: "music_streaming_1",
      artist_id: a.cm_artist,
      since: "2026-01-10",
      until: "2026-01-20",
    });
    const expected = data.statSeries(a.cm_artist, "music_streaming_1", "2026-01-10", "2026-01-20");
    const expectedPoints = Object.entries(expected.metrics).flatMap(([metric, points]) =>
      points.map((p) => [metric, p.timestp.slice(0, 10), String(p.value)]),
    );
    expect(expectedPoints.length).toBeGreaterThan(10);
    expect(series.points.map((p) => [p.metric, p.day, p.value])).toEqual(expectedPoints);
  });

  it("reads the snapshots (cm stats, three audience stats, video market coverage)", async () => {
    const id = artist().cm_artist;
    const artist_id = id;
    expect((await api.call(cmStatsOperation, { artist_id })).data).toEqual(data.cmStats(id));
    expect((await api.call(AUDIENCE_OPERATIONS.social_3, { artist_id })).data).toEqual(
      data.audienceStats(id, "social_3"),
    );
    expect((await api.call(AUDIENCE_OPERATIONS.short_video, { artist_id })).data).toEqual(
      data.audienceStats(id, "short_video"),
    );
    expect((await api.call(AUDIENCE_OPERATIONS.video, { artist_id })).data).toEqual(
      data.audienceStats(id, "video"),
    );
    expect((await api.call(videoMarketCoverageOperation, { artist_id })).data).toEqual(
      data.videoMarketCoverage(id),
    );
  });

  it("reads urls, radio airplays and radio spins as records", async () => {
    const id = artist().cm_artist;
    const urls = await api.send(urlsOperation, { artist_id: id });
    expect(urlsOperation.parse(urls.body).records).toEqual(
      endpointRecords("urls", data, { artist_id: id }),
    );
    expect(
      (await api.call(radioAirplaysOperation, { artist_id: id, date: "2026-01-15" })).records,
    ).toEqual(data.radioAirplays(id, "2026-01-15"));
    expect((await api.call(radioOperation, { artist_id: id, date: "2026-01-15" })).records).toEqual(
      data.radio(id, "2026-01-15"),
    );
  });

  it("pages social audience stats, editorial and curator playlists until complete", async () => {
    const id = artist().cm_artist;
    const social = await allPages(
      async (offset, limit) =>
        (
          await api.call(socialAudienceStatsOperation, {
            artist_id: id,
            domain: "social_3",
            audienceType: "followers",
            statsType: "country",
            offset,
            limit,
          })
        ).records,
      10,
    );
    expect(social).toEqual(
      data.socialAudienceStats(id, "social_3", "followers", "country", "2026-01-31"),
    );
    const editorial = await allPages(
      async (offset, limit) =>
        (
          await api.call(PLACEMENT_OPERATIONS.editorial, {
            artist_id: id,
            platform: "music_streaming_1",
            status: "current",
            offset,
            limit,
          })
        ).records,
      50,
    );
    expect(editorial).toEqual(data.editorialPlaylists(id, "music_streaming_1", "current"));
    const curator = await allPages(
      async (offset, limit) =>
        (
          await api.call(PLACEMENT_OPERATIONS.curator, {
            artist_id: id,
            platform: "music_streaming_2",
            offset,
            limit,
          })
        ).records,
      50,
    );
    expect(curator).toEqual(data.curatorPlaylists(id, "music_streaming_2"));
  });

  it.each(["wrapped", "array"] as const)("pages a chart that comes %s", async (shape) => {
    upstream.sandbox.setKnobs({ chartsShape: shape });
    const rows = await allPages(
      async (offset, limit) =>
        (
          await api.call(chartsOperation, {
            country_code: "GLOBAL",
            genre: "All Genres",
            date: "2026-01-15",
            offset,
            limit,
          })
        ).records,
      100,
    );
    const expected = data.chart("GLOBAL", "All Genres", "2026-01-15");
    expect(expected.length).toBeGreaterThan(100);
    expect(rows).toEqual(expected);
  });
});

describe("royalties", () => {
  it.each(["wrapped", "array"] as const)(
    "lists payouts, pending payouts and incomes when %s",
    async (shape) => {
      upstream.sandbox.setKnobs({ royaltiesShape: shape });
      const payouts = await api.call(listPayoutsOperation);
      expect(
        payouts.records
          .map(toPayout)
          .map((p) => [p.id, p.amount, p.fees, p.netAmount, p.status, p.idempotencyKey]),
      ).toEqual(
        data
          .payouts()
          .map((p) => [p.id, p.amount, p.fees, p.net_amount, p.status, p.metadata.idempotency_key]),
      );
      const pending = await api.call(listPendingPayoutsOperation);
      expect(pending.records.map((p) => p.id)).toEqual(data.pendingPayouts().map((p) => p.id));
      const incomes = await api.call(listIncomesOperation);
      expect(incomes.records).toEqual(data.incomes());
    },
  );

  it("reads the invoice", async () => {
    expect((await api.call(getInvoiceOperation)).data).toEqual(data.invoice());
  });

  it("requests a payout, then reports the upstream's refusals plainly", async () => {
    const balance = Number(data.balance());
    const made = await api.call(requestPayoutOperation, { amount: "150.00" });
    expect(made).toMatchObject({ accepted: true, withdrawalType: 1 });
    expect(made.payout).toMatchObject({ amount: "150.00", status: "pending" });
    expect(Number(data.balance())).toBeCloseTo(balance - 150, 2);

    const tooMuch = await api.call(requestPayoutOperation, { amount: 999999 });
    expect(tooMuch).toMatchObject({ accepted: false, type: 1 });

    expect(await api.call(setThresholdOperation, { amount: 200 })).toMatchObject({
      accepted: true,
    });
    expect(data.threshold()).toBe("200.00");
    expect(await api.call(setMonthlyTypeOperation)).toMatchObject({ accepted: true });
    const refused = await api.call(requestPayoutOperation, { amount: 120.5 });
    expect(refused).toMatchObject({ accepted: false, type: 0 });
    expect(refused.message).toBeTruthy();
  });
});

describe("parameter validation", () => {
  const list = {
    selection_type: "asset",
    sale_type: "stream",
    start_date: "2026-01-01T00:00:00",
    end_date: "2026-01-02T00:00:00",
  } as const;
  const total = {
    selection_type: "asset",
    start_date: "2026-01-01",
    end_date: "2026-01-02",
  } as const;
  // Each call is invalid in exactly the named field; casts let the tests send what types forbid.
  const cases: [string, string, (api: ApiClient) => Promise<unknown>][] = [
    ["getProductByUpc", "upc", (a) => a.call(getProductByUpcOperation, { upc: "" })],
    [
      "getProductByUpc",
      "page_size",
      (a) => a.call(getProductByUpcOperation, { upc: "1", page_size: 0 }),
    ],
    ["getArtistByName", "name", (a) => a.call(getArtistByNameOperation, { name: "  " })],
    ["getTerritories", "key", (a) => a.call(getTerritoriesOperation, { key: "" })],
    ["getDsps", "key", (a) => a.call(getDspsOperation, {} as never)],
    [
      "trends.total",
      "selection_type",
      (a) => a.call(getTrendsTotalOperation, { ...total, selection_type: "genre" as never }),
    ],
    [
      "trends.total",
      "start_date",
      (a) => a.call(getTrendsTotalOperation, { ...total, start_date: "2026-01-01T00:00:00" }),
    ],
    [
      "trends.total",
      "start_date",
      (a) => a.call(getTrendsTotalOperation, { ...total, start_date: "2026-01-03" }),
    ],
    [
      "trends.list",
      "sale_type",
      (a) => a.call(getTrendsListOperation, { ...list, sale_type: "rental" as never }),
    ],
    [
      "trends.list",
      "start_date",
      (a) => a.call(getTrendsListOperation, { ...list, start_date: "2026-01-01" }),
    ],
    ["trends.list", "size", (a) => a.call(getTrendsListOperation, { ...list, size: 0 })],
    ["trends.list", "offset", (a) => a.call(getTrendsListOperation, { ...list, offset: -1 })],
    [
      "trends.chart",
      "end_date",
      (a) => a.call(getTrendsChartOperation, { ...list, end_date: "2026-01-32T00:00:00" }),
    ],
    ["trends.chart", "dsp_id", (a) => a.call(getTrendsChartOperation, { ...list, dsp_id: -4 })],
    ["artistId", "id", (a) => a.call(artistIdOperation, { id: "" })],
    [
      "artistIdFromIdentifiers",
      "artist_id",
      (a) => a.call(artistIdFromIdentifiersOperation, { artist_id: 1.5 }),
    ],
    ["cmStats", "artist_id", (a) => a.call(cmStatsOperation, { artist_id: -1 })],
    ["stat", "source", (a) => a.call(statOperation, { source: "myspace" as never, artist_id: 1 })],
    [
      "stat",
      "since",
      (a) => a.call(statOperation, { source: "social_1", artist_id: 1, since: "2026/01/01" }),
    ],
    [
      "stat",
      "since",
      (a) =>
        a.call(statOperation, {
          source: "social_1",
          artist_id: 1,
          since: "2026-02-01",
          until: "2026-01-01",
        }),
    ],
    ["urls", "artist_id", (a) => a.send(urlsOperation, { artist_id: "12" as never })],
    ["social3AudienceStats", "artist_id", (a) => a.call(AUDIENCE_OPERATIONS.social_3, {} as never)],
    [
      "shortVideoAudienceStats",
      "artist_id",
      (a) => a.call(AUDIENCE_OPERATIONS.short_video, { artist_id: 0 }),
    ],
    [
      "videoAudienceStats",
      "artist_id",
      (a) => a.call(AUDIENCE_OPERATIONS.video, { artist_id: 2.5 }),
    ],
    [
      "socialAudienceStats",
      "domain",
      (a) => a.call(socialAudienceStatsOperation, { artist_id: 1, domain: "radio" as never }),
    ],
    [
      "socialAudienceStats",
      "audienceType",
      (a) => a.call(socialAudienceStatsOperation, { artist_id: 1, audienceType: "fans" as never }),
    ],
    [
      "socialAudienceStats",
      "statsType",
      (a) => a.call(socialAudienceStatsOperation, { artist_id: 1, statsType: "age" as never }),
    ],
    [
      "socialAudienceStats",
      "limit",
      (a) => a.call(socialAudienceStatsOperation, { artist_id: 1, limit: 0 }),
    ],
    [
      "videoMarketCoverage",
      "artist_id",
      (a) => a.call(videoMarketCoverageOperation, { artist_id: 0 }),
    ],
    [
      "editorialPlaylists",
      "platform",
      (a) =>
        a.call(PLACEMENT_OPERATIONS.editorial, {
          artist_id: 1,
          platform: "music_streaming_9" as never,
        }),
    ],
    [
      "editorialPlaylists",
      "status",
      (a) => a.call(PLACEMENT_OPERATIONS.editorial, { artist_id: 1, status: "future" as never }),
    ],
    [
      "curatorPlaylists",
      "platform",
      (a) => a.call(PLACEMENT_OPERATIONS.curator, { artist_id: 1, platform: "video" as never }),
    ],
    [
      "radioAirplays",
      "date",
      (a) => a.call(radioAirplaysOperation, { artist_id: 1, date: "yesterday" }),
    ],
    ["radio", "date", (a) => a.call(radioOperation, { artist_id: 1, date: "2026-02-29" })],
    ["charts", "country_code", (a) => a.call(chartsOperation, { country_code: "fr" })],
    ["charts", "offset", (a) => a.call(chartsOperation, { offset: -1 })],
    ["requestPayout", "amount", (a) => a.call(requestPayoutOperation, { amount: 99.99 })],
    ["requestPayout", "amount", (a) => a.call(requestPayoutOperation, { amount: "150,00" })],
    ["requestPayout", "amount", (a) => a.call(requestPayoutOperation, { amount: 150.001 })],
    [
      "requestPayout",
      "idempotency_key",
      (a) => a.call(requestPayoutOperation, { amount: 150, idempotency_key: "abc" }),
    ],
    ["setThreshold", "amount", (a) => a.call(setThresholdOperation, { amount: "lots" })],
    ["setThreshold", "amount", (a) => a.call(setThresholdOperation, { amount: 50 })],
  ];

  it.each(cases)("%s refuses a bad %s before sending anything", async (_, field, call) => {
    upstream.sandbox.resetStats();
    const error = await call(api).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParameterError);
    expect((error as ParameterError).message).toContain(`invalid parameter ${field}:`);
    expect(upstream.sandbox.stats().requests).toBe(0);
  });
});

describe("drift tolerance", () => {
  const noDrift = { extraFields: false, numbersAsStrings: false, nulls: false, renamedEnum: false };
  afterAll(() => upstream.sandbox.setKnobs({ drift: noDrift }));

  it("reads numbers sent as strings and keeps unknown fields in raw", async () => {
    upstream.sandbox.setKnobs({ drift: { ...noDrift, extraFields: true, numbersAsStrings: true } });
    const list = await api.call(getTrendsListOperation, {
      selection_type: "dsp",
      sale_type: "stream",
      start_date: "2026-01-03T00:00:00",
      end_date: "2026-01-03T23:59:59",
      size: 500,
    });
    const expected = data.trendList("2026-01-03", "2026-01-03", "dsp", "stream");
    expect(
      list.records.map((i) => [toText(i.id), toInteger(i.count), toDecimal(i.percentage)]),
    ).toEqual(expected.map((i) => [String(i.id), i.count, String(i.percentage)]));
    expect(list.records[0]).toMatchObject({
      count: String(expected[0]?.count),
      x_unexpected: expect.any(String),
    });

    const { records: payouts } = await api.call(listPayoutsOperation);
    expect(payouts.map((p) => toPayout(p).wallet)).toEqual(
      data.payouts().map((p) => String(p.wallet)),
    );
    const a = data.socialArtists()[0];
    const series = await api.call(statOperation, {
      source: "social_1",
      artist_id: a?.cm_artist ?? 0,
    });
    expect(series.points.length).toBeGreaterThan(0);
    expect(series.points.every((p) => p.value !== null && Number.isFinite(Number(p.value)))).toBe(
      true,
    );
  });

  it("turns nulls and renamed values into nulls or text, never a crash", async () => {
    upstream.sandbox.setKnobs({ drift: { ...noDrift, nulls: true, renamedEnum: true } });
    const list = await api.call(getTrendsListOperation, {
      selection_type: "asset",
      sale_type: "stream",
      start_date: "2026-01-03T00:00:00",
      end_date: "2026-01-03T23:59:59",
      size: 100,
    });
    expect(list.records.some((i) => toInteger(i.count) === null)).toBe(true);
    expect(list.records.every((i) => toText(i.id) !== null)).toBe(true);
    const { records } = await api.call(getDspsOperation, { key: "all" });
    expect(records).toHaveLength(data.dsps().length);
  });
});
