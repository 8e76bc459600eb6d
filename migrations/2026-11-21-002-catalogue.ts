import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

const SYNCED_AT = "When this row's content last changed (set on insert and on a real update only).";
const RAW = "The upstream's record exactly as received, including fields not typed here.";
const KEPT =
  "Refreshed in full on every sync from the configured look-ups; rows are never deleted, so an entry the upstream stops returning stays here as last seen.";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create schema if not exists catalogue`.execute(db);
  await sql`comment on schema catalogue is 'The account''s catalogue (products, assets, artists) and reference lists (territories, DSPs), as returned by the configured look-ups.'`.execute(
    db,
  );

  await sql`
    create table catalogue.products (
      product_id bigint primary key,
      upc text,
      title text,
      label_name text,
      label_id bigint,
      release_date date,
      artist_id bigint,
      artist_name text,
      genre text,
      format text,
      raw jsonb not null,
      synced_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index products_upc on catalogue.products (upc)`.execute(db);
  await commentOn(
    db,
    "catalogue.products",
    `Products (releases) found by the UPC look-ups of the configuration (upcs): one row per product, whichever look-ups returned it. ${KEPT}`,
    {
      product_id: "The upstream's product id.",
      upc: "The product's UPC or EAN barcode, as text (leading zeros kept).",
      title: "Product title, when the upstream sends one.",
      label_name: "Name of the label releasing the product, when sent.",
      label_id: "Id of that label, when sent.",
      release_date: "Release day, when sent as a valid YYYY-MM-DD date.",
      artist_id: "Id of the product's main artist (catalogue.artists.artist_id), when sent.",
      artist_name: "Name of the product's main artist, as sent with the product.",
      genre: "Genre, when sent.",
      format: "Single, EP or Album, when sent.",
      raw: `${RAW} Includes the product's assets.`,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table catalogue.assets (
      asset_id bigint primary key,
      product_id bigint,
      isrc text,
      title text,
      duration_seconds integer,
      track_number integer,
      explicit boolean,
      raw jsonb not null,
      synced_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index assets_product on catalogue.assets (product_id)`.execute(db);
  await sql`create index assets_isrc on catalogue.assets (isrc)`.execute(db);
  await commentOn(
    db,
    "catalogue.assets",
    `Assets (tracks) of the products in catalogue.products: one row per asset. ${KEPT}`,
    {
      asset_id: "The upstream's asset id.",
      product_id:
        "The product the asset was listed in (catalogue.products.product_id); null if that product came without an id.",
      isrc: "The asset's ISRC (CC XXX YY NNNNN, without dashes).",
      title: "Track title, when sent.",
      duration_seconds: "Duration in seconds, when sent.",
      track_number: "Position on the product, from 1, when sent.",
      explicit: "True when marked explicit; null when not sent.",
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table catalogue.artists (
      artist_id bigint primary key,
      name text,
      organization_id bigint,
      proprietary_id text,
      social_artist_id bigint,
      raw jsonb not null,
      synced_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index artists_social on catalogue.artists (social_artist_id)`.execute(db);
  await commentOn(
    db,
    "catalogue.artists",
    `Catalogue artists found by the name look-ups of the configuration (artist_names, case-insensitive substrings): one row per artist. ${KEPT}`,
    {
      artist_id: "The upstream's catalogue artist id.",
      name: "Artist name, exactly as sent (any script, quotes and punctuation kept).",
      organization_id: "Id of the organisation the artist belongs to.",
      proprietary_id: "The account's own reference for the artist (e.g. ART-…); often null.",
      social_artist_id:
        "The artist's id in the artist statistics API (cm_artist), resolved at each sync through /artist-stats/artist-id-from-identifiers; null when that API does not know the artist. Joins to the artist statistics tables.",
      raw: `${RAW} Includes the photo object.`,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table catalogue.territories (
      code text primary key,
      territory_id text,
      name text,
      raw jsonb not null,
      synced_at timestamptz not null default now()
    )`.execute(db);
  await commentOn(
    db,
    "catalogue.territories",
    `Territories (countries) returned by the territory look-ups of the configuration (territory_keys): one row per territory code. ${KEPT}`,
    {
      code: "Two-letter country code. Taken from the record's code, or from its id (the same code) when code is missing.",
      territory_id: "The upstream's territory id (the same two-letter code).",
      name: "Country name, as sent.",
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table catalogue.dsps (
      dsp_id bigint primary key,
      name text,
      code text,
      state text,
      raw jsonb not null,
      synced_at timestamptz not null default now()
    )`.execute(db);
  await commentOn(
    db,
    "catalogue.dsps",
    `Digital service providers (stores and streaming platforms) returned by the DSP look-ups of the configuration (dsp_keys): one row per DSP. ${KEPT}`,
    {
      dsp_id: "The upstream's DSP id; sales.trend_items.item_id for the dsp selection type.",
      name: "DSP name, as sent.",
      code: "The upstream's DSP code (e.g. DSP001); often null.",
      state: "The upstream's state of the DSP (e.g. active, inactive); often null.",
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop schema catalogue cascade`.execute(db);
}
