// The records the sandbox serves, exactly as they appear in response bodies before drift.

/** An object with no field, as shapes.emptyCases serves some (PHP then sends it as `[]`). */
export type EmptyObject = Record<string, never>;

/**
 * A money amount: "12.34" (text, two places) by default; under shapes.moneyDecimals 4 either
 * text with four places ("12.3400") or a JSON number (12.34, 1234.5678).
 */
export type Money = string | number;

export interface Asset {
  id: number;
  isrc: string;
  title: string;
  /** Seconds. */
  duration: number;
  track_number: number;
  explicit: boolean;
}

export interface Product {
  id: number;
  upc: string;
  title: string;
  /** Label name. */
  label: string;
  label_id: number;
  release_date: string;
  artist_id: number;
  artist_name: string;
  genre: string;
  format: "Single" | "EP" | "Album";
  assets: Asset[];
}

export interface ArtistPhoto {
  id: number;
  mimeType: string | null;
  /** YYYY-MM-DDThh:mm:ss, no zone. */
  modificationTime: string;
  originalFilename: string | null;
  resolutionHeight: number | null;
  resolutionWidth: number | null;
  vaultHook: string | null;
  has_uploaded: boolean;
}

export interface CatalogueArtist {
  id: number;
  name: string;
  proprietary_id: string | null;
  organization_id: number;
  /** Empty for one artist without an upload under shapes.emptyCases. */
  photo: ArtistPhoto | EmptyObject;
}

export interface Label {
  id: number;
  name: string;
}

export interface Territory {
  id: string;
  name: string;
  code: string;
}

export interface Dsp {
  id: number;
  name: string;
  code: string | null;
  state: string | null;
}

export type SelectionType = "dsp" | "territory" | "label" | "product" | "asset";
export type SaleType = "stream" | "download";

/** One entity's sales for one day, or summed over a range. */
export interface TrendItem {
  /** A number, or a country code for territories. */
  id: number | string;
  name: string;
  count: number;
}

export interface TrendListItem extends TrendItem {
  /** Share of the range's total, in %, two decimals. */
  percentage: number;
}

export interface TrendTotals {
  stream_count: number;
  /** Change against the previous period of equal length, in %, two decimals. */
  stream_percentage: number;
  download_count: number;
  download_percentage: number;
}

export interface TrendChart {
  groups: string[];
  data: { name: string; totals: number[] }[];
}

/** An artist known to the statistics API, with the identifiers it is found by. */
export interface SocialArtist {
  cm_artist: number;
  name: string;
  /** 22-character base62 id on music_streaming_1. */
  music_streaming_1: string;
  /** Numeric id on music_streaming_2, as text; null when the artist is not there. */
  music_streaming_2: string | null;
  /** Catalogue artist id (the "external" id of /artist-id-from-identifiers), or null. */
  artist_id: number | null;
}

export interface StatPoint {
  value: number;
  /** YYYY-MM-DDT00:00:00.000Z */
  timestp: string;
  daily_diff: number;
  interpolated: boolean;
}

/** /stat/{source}: served as `{link, <metric>: points, ...}`. */
export interface StatSeries {
  link: string | null;
  metrics: Record<string, StatPoint[]>;
}

export interface CmStats {
  cm_artist: number;
  name: string;
  cm_rank: number;
  timestp: string;
  /** Latest value of every metric, keyed `<source>_<metric>`. */
  stats: Record<string, number>;
}

export interface CountryShare {
  code: string;
  name: string;
  followers: number;
  percent: number;
}

export interface CityShare {
  name: string;
  country_code: string;
  followers: number;
  percent: number;
}

export interface PercentShare {
  code: string;
  percent: number;
}

export type AudienceDomain = "social_3" | "short_video" | "video";

/** Snapshot answered by the three *-audience-stats operations. */
export interface AudienceSnapshot {
  cm_artist: number;
  domain: AudienceDomain;
  timestp: string;
  followers: number;
  /** A fraction, e.g. 0.0345. */
  engagement_rate: number;
  avg_likes_per_post: number;
  avg_comments_per_post: number;
  top_countries: CountryShare[];
  top_cities: CityShare[];
  genders: PercentShare[];
  age_groups: PercentShare[];
}

export interface SocialAudienceRow {
  domain: string;
  audience_type: string;
  stats_type: string;
  /** Country or language code where the statistic has one. */
  code: string | null;
  name: string;
  value: number;
  percent: number;
  timestp: string;
}

export interface VideoMarketCoverage {
  cm_artist: number;
  timestp: string;
  total_views: number;
  markets: { code: string; name: string; views: number; percent: number }[];
}

export interface PlaylistEntry {
  playlist: {
    id: string;
    name: string;
    editorial: boolean;
    platform: string;
    owner_name: string;
    followers: number;
    position: number;
    peak_position: number;
    added_at: string;
    removed_at: string | null;
  };
  track: {
    id: string;
    name: string;
    isrc: string;
    artist_names: string[];
  };
}

export interface RadioAirplay {
  station: { name: string; city: string; country_code: string };
  track: { name: string; isrc: string };
  plays: number;
  date: string;
}

export interface RadioSpin {
  station_name: string;
  market: string;
  format: string;
  spins: number;
  audience: number;
  date: string;
}

export interface ChartRow {
  rank: number;
  /** Rank on the previous day, null for a new entry. */
  pre_rank: number | null;
  peak_rank: number;
  /** Days on this chart up to and including this one. */
  time_on_chart: number;
  artist: { cm_artist: number; name: string };
  track: { name: string; isrc: string };
}

export type PayoutStatus = "pending" | "processing" | "paid" | "failed" | "cancelled";

export interface Payout {
  id: string;
  user_id: string;
  amount: Money;
  currency: string;
  fees: Money;
  net_amount: Money;
  /** A JSON number by default. */
  wallet: Money;
  status: PayoutStatus;
  method: string | null;
  reference: string | null;
  created_at: string;
  processed_at: string | null;
  notes: string | null;
  /** Empty for the oldest payout under shapes.emptyCases. */
  metadata: { idempotency_key: string } | EmptyObject;
}

export interface Income {
  id: number;
  /** YYYY-MM */
  period: string;
  source: string;
  /** DSP name. */
  dsp: string;
  /** Territory code. */
  territory: string;
  amount: Money;
  currency: string;
  created_at: string;
}

export interface InvoiceLine {
  dsp: string;
  description: string;
  quantity: number;
  amount: Money;
}

export interface Invoice {
  invoice_number: string;
  period: string;
  issued_at: string;
  currency: string;
  total: Money;
  lines: InvoiceLine[];
}
