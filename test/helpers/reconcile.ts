import {
  AUDIENCE_DOMAINS,
  AUDIENCE_TYPES,
  CURATOR_PLATFORMS,
  EDITORIAL_PLATFORMS,
  PLAYLIST_STATUSES,
  SALE_TYPES,
  SELECTION_TYPES,
  STAT_SOURCES,
  STATS_TYPES,
} from "../../src/api/enums.js";
import type { EtlConfig } from "../../src/config/etl-config-schema.js";
import {
  endpointRecords,
  type Payout,
  type PlaylistEntry,
  type SandboxDataset,
  type ShapeKnobs,
} from "../../sandbox/index.js";
import { RENAMED_FIELDS } from "../../sandbox/renamed-fields.js";
import { addDays } from "../../src/time/calendar.js";
import type { TestWarehouse } from "./warehouse.js";

/**
 * Reconciliation of the warehouse with the sandbox's truth (`sandbox.data`, which serves the
 * current revision): every record the sandbox serves for what the config tracks must be stored
 * exactly once with its key and measure, or be quarantined in etl.rejected_records with a reason.
 * Each function covers one family of tables and returns one readable line per difference (empty
 * when the warehouse is exact).
 */
export interface ReconcileScope {
  readonly warehouse: TestWarehouse;
  readonly data: SandboxDataset;
  /** The config the sync ran with: what it tracks (look-ups, artists, charts, start_date). */
  readonly config: EtlConfig;
  /** The run date: snapshot tables are read at it, series end the day before. */
  readonly today: string;
  /** The days of the range that was synced (daily partitions). */
  readonly days: readonly string[];
  /** The shape knobs the sandbox served with (default shapes where absent): what was sent. */
  readonly shapes?: Partial<ShapeKnobs>;
}

/** One record as the comparison sees it: its key, its measure, and how a quarantine names it. */
interface Item {
  readonly key: string;
  readonly measure: string;
  /** What a quarantined copy of the record is recognised by (default: the key). */
  readonly identity?: string;
}

interface RejectedRow {
  readonly partition: string;
  readonly target_table: string;
  readonly reason: string;
  readonly record: unknown;
}

type Json = Record<string, unknown>;

const asJson = (value: unknown): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
const text = (value: unknown): string =>
  value === null || value === undefined
    ? "null"
    : typeof value === "string"
      ? value
      : typeof value === "number" || typeof value === "boolean"
        ? String(value)
        : JSON.stringify(value);
/** A value the measure writes exactly as given: a normalised decimal, never through a float. */
class Exact {
  constructor(readonly text: string) {}
}

/** A measure of several values, numbers written the way JavaScript writes them. */
const measure = (...values: unknown[]): string =>
  values
    .map((value) =>
      value instanceof Exact
        ? value.text
        : typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value) && !/^0\d/.test(value)
          ? String(Number(value))
          : text(value),
    )
    .join(" | ");

/**
 * A decimal compared by its digits: "12.3400", 12.34 and "012.34" are all "12.34". A served JSON
 * number is the text JavaScript writes for it (what JSON.stringify sent); a stored numeric is
 * read as text (`::text` in the query), so no value passes through a float with fewer digits.
 */
const decimal = (value: unknown): Exact => {
  if (value === null || value === undefined) return new Exact("null");
  const written = (typeof value === "string" ? value : JSON.stringify(value)).trim();
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(written);
  if (!match) return new Exact(`not a decimal: ${JSON.stringify(value)}`);
  const whole = (match[2] ?? "").replace(/^0+(?=\d)/, "");
  const fraction = (match[3] ?? "").replace(/0+$/, "");
  const sign = whole === "0" && fraction === "" ? "" : (match[1] ?? "");
  return new Exact(`${sign}${whole}${fraction === "" ? "" : `.${fraction}`}`);
};

/** An instant as ISO text with milliseconds, from a Date, ISO text or the stored UTC text. */
const instant = (value: unknown): string => {
  if (value instanceof Date) return value.toISOString();
  const parsed = Date.parse(text(value));
  return Number.isFinite(parsed) ? new Date(parsed).toISOString() : text(value);
};

/** SQL writing a timestamptz column as the UTC ISO text `instant` gives (null stays null). */
const utc = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * SQL reading the discovered column of a table's field (`path`), as text; null where no column
 * holds it (no value arrived). Discovered columns are named and typed as the upstream sends, so a
 * reconciliation finds them by field, not by name: `.instant` writes a time as `instant` does,
 * `.flag` a boolean sent as 1/0 or text as true/false.
 */
interface FieldColumns {
  (...path: string[]): string;
  instant(...path: string[]): string;
  flag(...path: string[]): string;
  /** The column itself (a jsonb list to read into), or null where none holds the field. */
  column(...path: string[]): string;
  /** A field's name as the upstream serves it, for reading inside a jsonb column. */
  served(name: string): string;
}

/** The sandbox operation whose records each table holds (renamedFields). */
const OPERATION_OF: Readonly<Record<string, string>> = {
  "catalogue.products": "catalogue.getProductByUpc",
  "catalogue.assets": "catalogue.getProductByUpc",
  "sales.trend_items": "trends.list",
  "royalties.incomes": "royalties.listIncomes",
  "royalties.invoices": "royalties.getInvoice",
  "artist_stats.cm_stats": "artistStats.cmStats",
  "artist_stats.audience_stats": "artistStats.social3AudienceStats",
  "artist_stats.social_audience_stats": "artistStats.socialAudienceStats",
  "artist_stats.video_market_coverage": "artistStats.videoMarketCoverage",
  "artist_stats.playlist_placements": "artistStats.editorialPlaylists",
  "artist_stats.radio": "artistStats.radio",
  "artist_stats.radio_airplays": "artistStats.radioAirplays",
  "artist_stats.chart_entries": "artistStats.charts",
};

async function fieldColumns(
  scope: Pick<ReconcileScope, "warehouse" | "shapes">,
  table: string,
): Promise<FieldColumns> {
  const { warehouse } = scope;
  const operation = OPERATION_OF[table];
  const renamed = scope.shapes?.renamedFields && operation ? RENAMED_FIELDS[operation] : {};
  const served = (name: string) => renamed?.[name] ?? name;
  const rows = await warehouse.query<{ column_name: string; field: string[]; data_type: string }>(
    "select column_name, field, data_type from etl.discovered_columns where table_name = $1",
    [table],
  );
  const byField = new Map(rows.map((row) => [row.field.join("."), row]));
  const column = (path: string[]) => byField.get(path.map(served).join("."));
  const ref = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const read = (...path: string[]) => {
    const found = column(path);
    return found ? `${ref(found.column_name)}::text` : "null";
  };
  read.instant = (...path: string[]) => {
    const found = column(path);
    if (!found) return "null";
    const name = ref(found.column_name);
    if (found.data_type === "timestamptz") return utc(name);
    if (found.data_type === "timestamp") return `to_char(${name}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    return `${name}::text`;
  };
  read.flag = (...path: string[]) => {
    const found = column(path);
    if (!found) return "null";
    const value = `lower(${ref(found.column_name)}::text)`;
    return `case ${value} when '1' then 'true' when '0' then 'false' else ${value} end`;
  };
  read.column = (...path: string[]) => {
    const found = column(path);
    return found ? ref(found.column_name) : "null";
  };
  read.served = served;
  return read;
}

/** A served instant as `instant` writes it, or null when none was served. */
const servedInstant = (value: string | null | undefined) =>
  value === null || value === undefined ? null : instant(value);
/** The day of a stat point's time (ISO text, or epoch milliseconds in a pair). */
const dayOfPoint = (record: unknown): string => {
  if (Array.isArray(record)) return new Date(Number(record[0])).toISOString().slice(0, 10);
  const point = asJson(record);
  const time = point.timestp ?? point.date ?? point.day;
  return typeof time === "number"
    ? new Date(time).toISOString().slice(0, 10)
    : text(time).slice(0, 10);
};

/** The quarantine: identities of the records of each target table, with a reason. */
export class Quarantine {
  private constructor(private readonly byTable: ReadonlyMap<string, ReadonlySet<string>>) {}

  static async load(warehouse: TestWarehouse): Promise<Quarantine> {
    const rows = await warehouse.query<RejectedRow>(
      "select partition, target_table, reason, record from etl.rejected_records",
    );
    const byTable = new Map<string, Set<string>>();
    for (const row of rows) {
      if (row.reason.trim() === "") continue;
      const identities = byTable.get(row.target_table) ?? new Set<string>();
      for (const identity of rejectedIdentities(row)) identities.add(identity);
      byTable.set(row.target_table, identities);
    }
    return new Quarantine(byTable);
  }

  has(table: string, identity: string): boolean {
    return this.byTable.get(table)?.has(identity) ?? false;
  }
}

/** How each table's quarantined record is recognised: the identity its served record has. */
function rejectedIdentities({ partition, target_table, record }: RejectedRow): string[] {
  const r = asJson(record);
  switch (target_table) {
    case "catalogue.products":
    case "catalogue.assets":
    case "catalogue.artists":
    case "catalogue.dsps":
    case "royalties.payouts":
      return [text(r.id)];
    case "catalogue.territories":
      return [text(r.code ?? r.id)];
    case "sales.trend_totals":
      return [partition];
    case "sales.trend_items":
      return [`${partition}|${text(r.id)}`];
    case "sales.trend_chart_points":
      return [`${partition}|${text(r.name)}|${text(Array.isArray(r.totals) ? r.totals[0] : null)}`];
    case "artist_stats.platform_stats":
      return [`${partition}|${dayOfPoint(record)}`];
    case "artist_stats.urls":
      return (Array.isArray(r.url) ? r.url : [r.url]).map(
        (url) => `${partition}|${text(r.domain)}|${text(url)}`,
      );
    case "artist_stats.playlist_placements": {
      const [artist, kind, platform, status = "all"] = partition.split("|");
      const playlist = asJson(r.playlist);
      const track = asJson(r.track);
      return [
        [artist, kind, platform, status, text(playlist.id), text(track.id ?? track.isrc)].join("|"),
      ];
    }
    case "artist_stats.social_audience_stats":
      return [`${partition}|${text(r.code)}|${text(r.name)}`];
    case "artist_stats.chart_entries":
      return [`${partition}|${text(r.rank)}`];
    case "artist_stats.radio":
    case "artist_stats.radio_airplays": {
      const [day, artist] = partition.split("|");
      const station =
        target_table === "artist_stats.radio" ? r.station_name : asJson(r.station).name;
      const count = target_table === "artist_stats.radio" ? r.spins : r.plays;
      return [`${artist}|${day}|${text(station)}|${text(count)}`];
    }
    case "royalties.incomes":
      return [instant(r.created_at)];
    case "royalties.invoices":
      return [text(r.invoice_number)];
    default:
      return [];
  }
}

/**
 * Differences between what was served (`expected`) and what is stored, by key: a record missing
 * and not quarantined, stored more than once, stored with another measure, or stored though not
 * served. Records served twice under one key are a difference too (unless quarantined): a key
 * holds one row, so one of them was lost.
 */
export function compareItems(
  table: string,
  expected: readonly Item[],
  stored: readonly Item[],
  quarantine: Quarantine,
): string[] {
  const differences: string[] = [];
  const group = (items: readonly Item[]) => {
    const map = new Map<string, Item[]>();
    for (const item of items) map.set(item.key, [...(map.get(item.key) ?? []), item]);
    return map;
  };
  const served = group(expected);
  const kept = group(stored);
  const quarantined = (item: Item) => quarantine.has(table, item.identity ?? item.key);
  for (const [key, items] of served) {
    const rows = kept.get(key) ?? [];
    const [row] = rows;
    if (!row) {
      for (const item of items.filter((i) => !quarantined(i))) {
        differences.push(`${table} ${key}: missing (served ${item.measure}), not quarantined`);
      }
    } else if (rows.length > 1) {
      differences.push(
        `${table} ${key}: stored ${rows.length} times (${rows.map((r) => r.measure).join("; ")})`,
      );
    } else if (items.length > 1) {
      const lost = items.filter((i) => i.measure !== row.measure && !quarantined(i));
      if (lost.length > 0) {
        differences.push(
          `${table} ${key}: served ${items.length} records under this key (${items
            .map((i) => i.measure)
            .join("; ")}), stored one (${row.measure})`,
        );
      }
    } else if (items[0] && items[0].measure !== row.measure) {
      differences.push(`${table} ${key}: stored ${row.measure}, served ${items[0].measure}`);
    }
  }
  for (const [key, rows] of kept) {
    if (served.has(key)) continue;
    const measures = rows.map((r) => r.measure).join("; ");
    differences.push(`${table} ${key}: stored (${measures}), not served`);
  }
  return differences;
}

/**
 * Stored rows as items: the query returns `key` and `m`, a JSON array of the measure's values
 * (built with json_build_array, so numbers come back as numbers and compare like served ones).
 * The values at `decimals` (positions in m) are numeric columns the query wrote as `::text`,
 * compared exactly as decimals.
 */
async function storedItems(
  warehouse: TestWarehouse,
  sql: string,
  values: unknown[] = [],
  decimals: readonly number[] = [],
  instants: readonly number[] = [],
): Promise<Item[]> {
  const rows = await warehouse.query<{ key: string; m: unknown[] }>(sql, values);
  const normal = (value: unknown, i: number) => {
    if (decimals.includes(i)) return decimal(value);
    return instants.includes(i) && value !== null ? instant(value) : value;
  };
  return rows.map(({ key, m }) => ({ key, measure: measure(...m.map(normal)) }));
}

/**
 * compareItems for a table whose stored rows `query` reads; a query the warehouse refuses (a
 * column its migration has not added yet) is one difference line instead of an error.
 */
async function tableDifferences(
  table: string,
  expected: readonly Item[],
  query: () => Promise<Item[]>,
  quarantine: Quarantine,
): Promise<string[]> {
  let stored: Item[];
  try {
    stored = await query();
  } catch (error) {
    return [`${table}: cannot be read (${(error as Error).message})`];
  }
  return compareItems(table, expected, stored, quarantine);
}

/** The upstream's look-ups: a case-insensitive substring of any field, "all" matching all. */
const found = (keys: readonly string[], ...fields: (string | null)[]) =>
  keys.some(
    (key) =>
      key.toLowerCase() === "all" ||
      fields.some((field) => field?.toLowerCase().includes(key.toLowerCase())),
  );

/** The catalogue artists the config's names find (a name search has no "all"). */
function lookedUpArtists({ data, config }: ReconcileScope) {
  return data
    .artists()
    .filter((artist) =>
      config.artist_names.some((name) => artist.name.toLowerCase().includes(name.toLowerCase())),
    );
}

/** catalogue.products, assets, artists, territories and dsps: what the configured look-ups find. */
export async function catalogueDifferences(scope: ReconcileScope): Promise<string[]> {
  const { warehouse, data, config } = scope;
  const quarantine = await Quarantine.load(warehouse);
  const products = data.products().filter((p) => config.upcs.some((upc) => p.upc.includes(upc)));
  const socialIdOf = new Map(data.socialArtists().map((s) => [s.artist_id, s.cm_artist]));
  const product = await fieldColumns(scope, "catalogue.products");
  const asset = await fieldColumns(scope, "catalogue.assets");
  return [
    ...compareItems(
      "catalogue.products",
      products.map((p) => ({ key: String(p.id), measure: measure(p.upc, p.title, p.artist_id) })),
      await storedItems(
        warehouse,
        `select product_id::text as key,
                json_build_array(upc, ${product("title")}, ${product("artist_id")}) as m
           from catalogue.products`,
      ),
      quarantine,
    ),
    ...compareItems(
      "catalogue.assets",
      products.flatMap((p) =>
        p.assets.map((a) => ({
          key: String(a.id),
          measure: measure(p.id, a.isrc, a.title, a.explicit),
        })),
      ),
      await storedItems(
        warehouse,
        `select asset_id::text as key,
                json_build_array(product_id, isrc, ${asset("title")}, ${asset.flag("explicit")}) as m
           from catalogue.assets`,
      ),
      quarantine,
    ),
    ...compareItems(
      "catalogue.artists",
      lookedUpArtists(scope).map((a) => ({
        key: String(a.id),
        measure: measure(a.name, socialIdOf.get(a.id) ?? null),
      })),
      await storedItems(
        warehouse,
        `select artist_id::text as key, json_build_array(name, social_artist_id) as m
           from catalogue.artists`,
      ),
      quarantine,
    ),
    ...compareItems(
      "catalogue.territories",
      data
        .territories()
        .filter((t) => found(config.territory_keys, t.name, t.code))
        .map((t) => ({ key: t.code, measure: measure(t.name) })),
      await storedItems(
        warehouse,
        "select code as key, json_build_array(name) as m from catalogue.territories",
      ),
      quarantine,
    ),
    ...compareItems(
      "catalogue.dsps",
      data
        .dsps()
        .filter((d) => found(config.dsp_keys, d.name, d.code))
        .map((d) => ({ key: String(d.id), measure: measure(d.name) })),
      await storedItems(
        warehouse,
        "select dsp_id::text as key, json_build_array(name) as m from catalogue.dsps",
      ),
      quarantine,
    ),
  ];
}

/** sales.trend_totals, trend_items and trend_chart_points of the synced days. */
export async function salesDifferences(scope: ReconcileScope): Promise<string[]> {
  const { warehouse, data, days } = scope;
  const quarantine = await Quarantine.load(warehouse);
  const item = await fieldColumns(scope, "sales.trend_items");
  const totals: Item[] = [];
  const items: Item[] = [];
  const points: Item[] = [];
  for (const day of days) {
    for (const selection of SELECTION_TYPES) {
      const t = data.trendTotals(day, day, selection);
      totals.push({
        key: `${day}|${selection}`,
        measure: measure(
          t.stream_count,
          t.download_count,
          t.stream_percentage,
          t.download_percentage,
        ),
      });
      for (const sale of SALE_TYPES) {
        const partition = `${day}|${selection}|${sale}`;
        for (const item of data.trendList(day, day, selection, sale)) {
          items.push({ key: `${partition}|${String(item.id)}`, measure: measure(item.count) });
        }
        // A series is its place in the chart: two top entities may share a name.
        for (const [position, series] of data
          .trendChart(day, day, selection, sale)
          .data.entries()) {
          points.push({
            key: `${partition}|${position}`,
            measure: measure(series.name, series.totals[0] ?? null),
            identity: `${partition}|${series.name}|${text(series.totals[0] ?? null)}`,
          });
        }
      }
    }
  }
  return [
    ...compareItems(
      "sales.trend_totals",
      totals,
      await storedItems(
        warehouse,
        `select day::text || '|' || selection_type as key,
                json_build_array(stream_count, download_count, stream_percentage,
                                 download_percentage) as m
           from sales.trend_totals where day = any($1::date[])`,
        [days],
      ),
      quarantine,
    ),
    ...compareItems(
      "sales.trend_items",
      items,
      await storedItems(
        warehouse,
        `select concat_ws('|', day, selection_type, sale_type, item_id) as key,
                json_build_array(${item("count")}) as m
           from sales.trend_items where day = any($1::date[])`,
        [days],
      ),
      quarantine,
    ),
    ...compareItems(
      "sales.trend_chart_points",
      points,
      await storedItems(
        warehouse,
        `select concat_ws('|', day, selection_type, sale_type, series_position) as key,
                json_build_array(series, total) as m
           from sales.trend_chart_points where day = any($1::date[])`,
        [days],
      ),
      quarantine,
    ),
  ];
}

/** The social ids the config tracks: listed, found by streaming id, or linked from the catalogue. */
export function expectedTrackedArtists(scope: ReconcileScope): number[] {
  const { data, config } = scope;
  const linked = new Set(lookedUpArtists(scope).map((a) => a.id));
  return data
    .socialArtists()
    .filter(
      (s) =>
        config.social_artist_ids.includes(s.cm_artist) ||
        config.streaming_artist_ids.includes(s.music_streaming_1) ||
        (s.artist_id !== null && linked.has(s.artist_id)),
    )
    .map((s) => s.cm_artist)
    .sort((a, b) => a - b);
}

/** What the artist statistics of the tracked artists should hold, as items per table. */
function servedArtistStats(scope: ReconcileScope, artists: readonly number[]) {
  const { data, config, today, days } = scope;
  // Pairs and metric rows carry no interpolated flag: nothing was served to store.
  const interpolatedServed = !["pairs", "metric-rows"].includes(
    scope.shapes?.statPoints ?? "timestp",
  );
  const yesterday = addDays(today, -1);
  const served = {
    points: [] as Item[],
    urls: [] as Item[],
    placements: [] as Item[],
    audience: [] as Item[],
    radio: [] as Item[],
    airplays: [] as Item[],
    entries: [] as Item[],
  };
  const placement = (prefix: string, entry: PlaylistEntry) =>
    served.placements.push({
      key: `${prefix}|${entry.playlist.id}|${entry.track.id}`,
      measure: measure(
        entry.playlist.followers,
        entry.playlist.position,
        instant(entry.playlist.added_at),
        servedInstant(entry.playlist.removed_at),
      ),
    });
  for (const id of artists) {
    for (const source of STAT_SOURCES) {
      const series = data.statSeries(id, source, config.start_date, yesterday);
      for (const [metric, list] of Object.entries(series.metrics)) {
        for (const point of list) {
          const day = point.timestp.slice(0, 10);
          served.points.push({
            key: `${id}|${source}|${metric}|${day}`,
            measure: measure(point.value, interpolatedServed ? point.interpolated : null),
            identity: `${id}|${source}|${day}`,
          });
        }
      }
    }
    const urls = endpointRecords("urls", data, { artist_id: id }) as {
      domain: string;
      url: string;
    }[];
    for (const { domain, url } of urls) {
      served.urls.push({ key: `${id}|${domain}|${url}`, measure: "listed" });
    }
    for (const platform of EDITORIAL_PLATFORMS) {
      for (const status of PLAYLIST_STATUSES) {
        for (const entry of data.editorialPlaylists(id, platform, status)) {
          placement(`${id}|editorial|${platform}|${status}`, entry);
        }
      }
    }
    for (const platform of CURATOR_PLATFORMS) {
      for (const entry of data.curatorPlaylists(id, platform)) {
        placement(`${id}|curator|${platform}|all`, entry);
      }
    }
    for (const domain of AUDIENCE_DOMAINS) {
      for (const audienceType of AUDIENCE_TYPES) {
        for (const statsType of STATS_TYPES) {
          const partition = `${id}|${domain}|${audienceType}|${statsType}`;
          const rows = data.socialAudienceStats(id, domain, audienceType, statsType, today);
          for (const [position, row] of rows.entries()) {
            served.audience.push({
              key: `${partition}|${position}`,
              measure: measure(row.code, row.name, row.value, instant(row.timestp)),
              identity: `${partition}|${text(row.code)}|${row.name}`,
            });
          }
        }
      }
    }
    for (const day of days) {
      for (const [position, spin] of data.radio(id, day).entries()) {
        served.radio.push({
          key: `${id}|${day}|${position}`,
          measure: measure(spin.station_name, spin.spins),
          identity: `${id}|${day}|${spin.station_name}|${spin.spins}`,
        });
      }
      for (const [position, play] of data.radioAirplays(id, day).entries()) {
        served.airplays.push({
          key: `${id}|${day}|${position}`,
          measure: measure(play.station.name, play.track.isrc, play.plays),
          identity: `${id}|${day}|${play.station.name}|${play.plays}`,
        });
      }
    }
  }
  for (const { country_code, genre } of config.charts) {
    for (const day of days) {
      for (const row of data.chart(country_code, genre, day)) {
        served.entries.push({
          key: `${day}|${country_code}|${genre}|${row.rank}`,
          measure: measure(row.artist.cm_artist, row.track.isrc),
        });
      }
    }
  }
  return served;
}

/**
 * The snapshot tables at today's snapshot_date. A snapshot served as a list is stored one row per
 * element (`element`, its index); a single object is element 0; an empty snapshot ({}, [] or
 * null) stores no row. video_market_coverage as a list holds one market per row.
 */
async function snapshotDifferences(
  scope: ReconcileScope,
  artists: readonly number[],
  quarantine: Quarantine,
): Promise<string[]> {
  const { warehouse, data, today } = scope;
  const atToday =
    (sql: string, decimals: number[] = [], instants: number[] = []) =>
    () =>
      storedItems(warehouse, sql, [today], decimals, instants);
  const cmStats = await fieldColumns(scope, "artist_stats.cm_stats");
  const audienceStats = await fieldColumns(scope, "artist_stats.audience_stats");
  const videoCoverage = await fieldColumns(scope, "artist_stats.video_market_coverage");
  const cm: Item[] = [];
  const audience: Item[] = [];
  const coverage: Item[] = [];
  for (const id of artists) {
    const stats = data.cmStats(id);
    cm.push({
      key: `${id}|0`,
      measure: measure(stats.name, stats.cm_rank, instant(stats.timestp)),
    });
    for (const domain of AUDIENCE_DOMAINS) {
      const snapshot = data.audienceStats(id, domain);
      if (!("domain" in snapshot)) continue;
      audience.push({
        key: `${id}|${domain}|0`,
        measure: measure(
          snapshot.followers,
          decimal(snapshot.engagement_rate),
          instant(snapshot.timestp),
        ),
      });
    }
    const markets = data.videoMarketCoverage(id);
    if (scope.shapes?.listSnapshots) {
      for (const [element, market] of markets.markets.entries()) {
        coverage.push({
          key: `${id}|${element}`,
          measure: measure(
            null,
            null,
            market.code,
            market.name,
            market.views,
            decimal(market.percent),
          ),
        });
      }
    } else {
      coverage.push({
        key: `${id}|0`,
        measure: measure(
          markets.total_views,
          instant(markets.timestp),
          null,
          null,
          null,
          decimal(null),
        ),
      });
    }
  }
  return [
    ...(await tableDifferences(
      "artist_stats.cm_stats",
      cm,
      atToday(
        `select concat_ws('|', artist_id, element) as key,
                json_build_array(${cmStats("name")}, ${cmStats("cm_rank")},
                                 ${cmStats.instant("timestp")}) as m
           from artist_stats.cm_stats where snapshot_date = $1`,
        [],
        [2],
      ),
      quarantine,
    )),
    ...(await tableDifferences(
      "artist_stats.audience_stats",
      audience,
      atToday(
        `select concat_ws('|', artist_id, domain, element) as key,
                json_build_array(${audienceStats("followers")}, ${audienceStats("engagement_rate")},
                                 ${audienceStats.instant("timestp")}) as m
           from artist_stats.audience_stats where snapshot_date = $1`,
        [1],
        [2],
      ),
      quarantine,
    )),
    ...(await tableDifferences(
      "artist_stats.video_market_coverage",
      coverage,
      atToday(
        `select concat_ws('|', artist_id, element) as key,
                json_build_array(${videoCoverage("total_views")}, ${videoCoverage.instant("timestp")},
                                 ${videoCoverage("code")}, ${videoCoverage("name")},
                                 ${videoCoverage("views")}, ${videoCoverage("percent")}) as m
           from artist_stats.video_market_coverage where snapshot_date = $1`,
        [5],
        [1],
      ),
      quarantine,
    )),
  ];
}

/**
 * artist_stats: the tracked artists, platform_stats points (start_date to the day before today),
 * urls, playlist_placements, social_audience_stats, cm_stats, audience_stats and
 * video_market_coverage (today's snapshots), and chart_entries, radio and radio_airplays of the
 * synced days.
 */
export async function artistStatsDifferences(scope: ReconcileScope): Promise<string[]> {
  const { warehouse, today, days } = scope;
  const quarantine = await Quarantine.load(warehouse);
  const artists = expectedTrackedArtists(scope);
  const served = servedArtistStats(scope, artists);
  const stored = (sql: string, values?: unknown[], instants: number[] = []) =>
    storedItems(warehouse, sql, values, [], instants);
  const columnsOf = (table: string) => fieldColumns(scope, `artist_stats.${table}`);
  const points = await columnsOf("platform_stats");
  const placements = await columnsOf("playlist_placements");
  const audience = await columnsOf("social_audience_stats");
  const entries = await columnsOf("chart_entries");
  const radio = await columnsOf("radio");
  const airplays = await columnsOf("radio_airplays");
  return [
    ...compareItems(
      "artist_stats.artists",
      artists.map((id) => ({ key: String(id), measure: "tracked" })),
      await stored(
        `select artist_id::text as key, json_build_array('tracked') as m from artist_stats.artists`,
      ),
      quarantine,
    ),
    ...compareItems(
      "artist_stats.platform_stats",
      served.points,
      await stored(
        `select concat_ws('|', artist_id, source, metric, day) as key,
                json_build_array(value, ${points.flag("interpolated")}) as m
           from artist_stats.platform_stats`,
      ),
      quarantine,
    ),
    ...compareItems(
      "artist_stats.urls",
      served.urls,
      await stored(
        `select concat_ws('|', artist_id, domain, url) as key, json_build_array('listed') as m
           from artist_stats.urls`,
      ),
      quarantine,
    ),
    ...compareItems(
      "artist_stats.playlist_placements",
      served.placements,
      await stored(
        `select concat_ws('|', artist_id, kind, platform, status, playlist_key) as key,
                json_build_array(${placements("playlist", "followers")},
                                 ${placements("playlist", "position")},
                                 ${placements.instant("playlist", "added_at")},
                                 ${placements.instant("playlist", "removed_at")}) as m
           from artist_stats.playlist_placements where snapshot_date = $1`,
        [today],
        [2, 3],
      ),
      quarantine,
    ),
    ...compareItems(
      "artist_stats.social_audience_stats",
      served.audience,
      await stored(
        `select concat_ws('|', artist_id, domain, audience_type, stats_type, position) as key,
                json_build_array(${audience("code")}, ${audience("name")}, ${audience("value")},
                                 ${audience.instant("timestp")}) as m
           from artist_stats.social_audience_stats where snapshot_date = $1`,
        [today],
        [3],
      ),
      quarantine,
    ),
    ...(await snapshotDifferences(scope, artists, quarantine)),
    ...compareItems(
      "artist_stats.chart_entries",
      served.entries,
      await stored(
        `select concat_ws('|', chart_date, country_code, genre, rank) as key,
                json_build_array(${entries("artist", "cm_artist")}, ${entries("track", "isrc")}) as m
           from artist_stats.chart_entries where chart_date = any($1::date[])`,
        [days],
      ),
      quarantine,
    ),
    ...compareItems(
      "artist_stats.radio",
      served.radio,
      await stored(
        `select concat_ws('|', artist_id, snapshot_date, position) as key,
                json_build_array(${radio("station_name")}, ${radio("spins")}) as m
           from artist_stats.radio where snapshot_date = any($1::date[])`,
        [days],
      ),
      quarantine,
    ),
    ...compareItems(
      "artist_stats.radio_airplays",
      served.airplays,
      await stored(
        `select concat_ws('|', artist_id, snapshot_date, position) as key,
                json_build_array(${airplays("station", "name")}, ${airplays("track", "isrc")},
                                 ${airplays("plays")}) as m
           from artist_stats.radio_airplays where snapshot_date = any($1::date[])`,
        [days],
      ),
      quarantine,
    ),
  ];
}

/** The idempotency key a payout was served with; null when its metadata had none. */
const idempotencyKey = (payout: Payout): string | null =>
  "idempotency_key" in payout.metadata ? payout.metadata.idempotency_key : null;

/** An invoice's line amounts as one exact measure value, in line order. */
const lineAmounts = (amounts: readonly unknown[]) =>
  new Exact(amounts.map((amount) => decimal(amount).text).join(", "));

/**
 * royalties: every payout in its current status with its money exact and its instants; exactly
 * one row per income with its current amount and its month, recognised by its `created_at` (unique among
 * incomes), so a restated income counts once even without an id, and keyed by its id when the
 * upstream sends one; today's invoice snapshot with its total and line amounts exact.
 */
export async function royaltiesDifferences(
  scope: ReconcileScope,
  options: { readonly incomesHaveIds: boolean },
): Promise<string[]> {
  const { warehouse, data, today } = scope;
  const quarantine = await Quarantine.load(warehouse);
  const idOrNot = (id: unknown) => (options.incomesHaveIds ? id : "(no id)");
  const invoice = data.invoice();
  const income = await fieldColumns(scope, "royalties.incomes");
  const incomeRows = await warehouse.query<{ created_at: string | null; m: unknown[] }>(
    `select ${income.instant("created_at")} as created_at,
            json_build_array(income_key, ${income("amount")}, ${income("period")},
                             ${income("dsp")}, period_start::text) as m
       from royalties.incomes`,
  );
  // The invoice's number is its key (invoice_key holds it: no column of its own).
  const inv = await fieldColumns(scope, "royalties.invoices");
  const lines = inv.column("lines");
  const invoiceRows = await warehouse.query<{ key: string; m: unknown[]; amounts: unknown[] }>(
    `select invoice_key || '@' || snapshot_date::text as key,
            json_build_array(invoice_key, ${inv("total")}, jsonb_array_length(${lines}),
                             ${inv.instant("issued_at")}) as m,
            (select coalesce(json_agg(line ->> '${inv.served("amount")}' order by n), '[]')
               from jsonb_array_elements(${lines}) with ordinality as l(line, n)) as amounts
       from royalties.invoices where snapshot_date = $1`,
    [today],
  );
  return [
    ...compareItems(
      "royalties.payouts",
      data.payouts().map((p) => ({
        key: p.id,
        measure: measure(
          p.status,
          decimal(p.amount),
          decimal(p.fees),
          decimal(p.net_amount),
          decimal(p.wallet),
          p.reference,
          servedInstant(p.processed_at),
          instant(p.created_at),
          idempotencyKey(p),
        ),
      })),
      await storedItems(
        warehouse,
        `select payout_id as key,
                json_build_array(status, amount::text, fees::text, net_amount::text, wallet::text,
                  reference, ${utc("processed_at")}, ${utc("created_at")}, idempotency_key) as m
           from royalties.payouts`,
        [],
        [1, 2, 3, 4],
      ),
      quarantine,
    ),
    ...compareItems(
      "royalties.incomes",
      data.incomes().map((i) => ({
        key: instant(i.created_at),
        measure: measure(
          idOrNot(String(i.id)),
          decimal(i.amount),
          i.period,
          i.dsp,
          `${i.period}-01`,
        ),
      })),
      incomeRows.map(({ created_at, m: [key, amount, ...rest] }) => ({
        key: instant(created_at),
        measure: measure(idOrNot(key), decimal(amount), ...rest),
      })),
      quarantine,
    ),
    ...compareItems(
      "royalties.invoices",
      [
        {
          key: `${invoice.invoice_number}@${today}`,
          measure: measure(
            invoice.invoice_number,
            decimal(invoice.total),
            invoice.lines.length,
            instant(invoice.issued_at),
            lineAmounts(invoice.lines.map((line) => line.amount)),
          ),
          identity: invoice.invoice_number,
        },
      ],
      invoiceRows.map(({ key, m: [number, total, ...rest], amounts }) => ({
        key,
        measure: measure(number, decimal(total), ...rest, lineAmounts(amounts)),
      })),
      quarantine,
    ),
  ];
}

/** Every family at once, in run order. */
export async function warehouseDifferences(
  scope: ReconcileScope,
  options: { readonly incomesHaveIds: boolean },
): Promise<string[]> {
  return [
    ...(await catalogueDifferences(scope)),
    ...(await salesDifferences(scope)),
    ...(await artistStatsDifferences(scope)),
    ...(await royaltiesDifferences(scope, options)),
  ];
}
