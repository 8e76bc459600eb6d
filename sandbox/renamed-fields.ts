// The renamedFields knob: an upstream written independently of this sandbox names the fields the
// spec does not show its own way, and sends one more. Values and records do not change; the
// fields a key is made of (a chart's rank, a placement's playlist and track ids, an income's or a
// list item's id, the invoice's number) and the envelopes' keep their names.
import { MODULE_RENAMED_FIELDS } from "./endpoint-modules.js";
import type { ShapeKnobs } from "./interfaces.js";

const AUDIENCE = {
  cm_artist: "artist_id",
  followers: "followerCount",
  engagement_rate: "engagementRate",
  avg_likes_per_post: "avgLikes",
  avg_comments_per_post: "avgComments",
  timestp: "updated_at",
  top_countries: "countries",
  top_cities: "cities",
  genders: "genderSplit",
  age_groups: "ageGroups",
  country_code: "countryCode",
  percent: "share",
};

const PLAYLISTS = {
  name: "title",
  editorial: "isEditorial",
  platform: "service",
  owner_name: "owner",
  followers: "followerCount",
  position: "currentPosition",
  peak_position: "peakPosition",
  added_at: "addedAt",
  removed_at: "removedAt",
  artist_names: "artists",
};

/** Each operation's new names, by the sandbox's own name of the field. */
export const RENAMED_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  ...MODULE_RENAMED_FIELDS,
  // A product's and an asset's title alike: names apply at every depth of an answer.
  "catalogue.getProductByUpc": {
    title: "displayTitle",
    label: "labelName",
    label_id: "labelId",
    release_date: "releaseDate",
    artist_id: "primaryArtistId",
    artist_name: "primaryArtist",
    genre: "primaryGenre",
    format: "productType",
    duration: "durationSec",
    track_number: "trackNo",
    explicit: "parentalAdvisory",
  },
  "trends.list": { name: "label", count: "units", percentage: "share" },
  // The month under another name: the load finds an income's month by its value.
  "royalties.listIncomes": {
    period: "month",
    source: "origin",
    dsp: "store",
    territory: "countryCode",
    amount: "revenue",
    currency: "currencyCode",
    created_at: "createdAt",
  },
  "royalties.getInvoice": {
    period: "billingPeriod",
    issued_at: "issuedAt",
    currency: "currencyCode",
    total: "grandTotal",
    lines: "items",
    dsp: "store",
    description: "text",
    quantity: "qty",
    amount: "lineAmount",
  },
  "artistStats.cmStats": { cm_artist: "artist_id", cm_rank: "rank", timestp: "updated_at" },
  "artistStats.social3AudienceStats": AUDIENCE,
  "artistStats.shortVideoAudienceStats": AUDIENCE,
  "artistStats.videoAudienceStats": AUDIENCE,
  "artistStats.socialAudienceStats": {
    code: "countryCode",
    name: "label",
    value: "count",
    percent: "share",
    timestp: "updated_at",
  },
  "artistStats.videoMarketCoverage": {
    cm_artist: "artist_id",
    total_views: "totalViews",
    timestp: "updated_at",
    markets: "countries",
    code: "countryCode",
    name: "countryName",
    views: "viewCount",
    percent: "share",
  },
  "artistStats.editorialPlaylists": PLAYLISTS,
  "artistStats.curatorPlaylists": PLAYLISTS,
  "artistStats.radio": {
    station_name: "station",
    market: "marketName",
    format: "stationFormat",
    spins: "spinCount",
    audience: "listeners",
    date: "day",
  },
  "artistStats.radioAirplays": {
    station: "radioStation",
    city: "cityName",
    country_code: "countryCode",
    name: "title",
    plays: "playCount",
    date: "day",
  },
  "artistStats.charts": {
    pre_rank: "previousRank",
    peak_rank: "peakRank",
    time_on_chart: "weeksOnChart",
    artist: "performer",
    cm_artist: "id",
    name: "title",
  },
};

/** A field the sandbox's own records do not have, added to each record that has one renamed. */
export const ADDED_FIELD = { name: "served_by", value: "an independently written upstream" };

/**
 * The body with the operation's renamed fields under their new names, at every depth, and
 * ADDED_FIELD in each object that had one.
 */
export function renameFields(
  body: unknown,
  operation: string | undefined,
  shapes: ShapeKnobs,
): unknown {
  const names = shapes.renamedFields && operation ? RENAMED_FIELDS[operation] : undefined;
  if (!names) return body;
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== "object" || value === null) return value;
    const entries = Object.entries(value);
    const renamed = entries.map(([key, child]): [string, unknown] => [
      names[key] ?? key,
      visit(child),
    ]);
    if (!entries.some(([key]) => key in names)) return Object.fromEntries(renamed);
    return Object.fromEntries([...renamed, [ADDED_FIELD.name, ADDED_FIELD.value]]);
  };
  return visit(body);
}
