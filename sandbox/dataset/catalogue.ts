import { formatDay, instantOn } from "../days.js";
import type { SandboxSize } from "../size.js";
import { rngFor } from "../prng.js";
import { GENRES } from "./genres.js";
import { base62Id, isrcCode, registrantCode, upcCode } from "./identifiers.js";
import { nameFor } from "./names.js";
import type { Asset, CatalogueArtist, Dsp, Label, Product } from "./records.js";

export interface Catalogue {
  products: Product[];
  /** Every product's assets, in product order. */
  assets: Asset[];
  artists: CatalogueArtist[];
  labels: Label[];
  dsps: Dsp[];
}

const ISRC_COUNTRIES = ["FR", "GB", "US", "DE", "NL", "SE", "JP", "BR"];

/** The whole catalogue; products depend on artists and labels, so it is built in one pass. */
export function generateCatalogue(seed: number, size: SandboxSize, startDay: number): Catalogue {
  const artists = Array.from({ length: size.artists }, (_, i) =>
    catalogueArtist(seed, i, startDay),
  );
  const labels = distinctNames(
    Array.from({ length: size.labels }, (_, i) => ({
      id: 10 + i,
      name: nameFor(seed, "label", i),
    })),
  );
  const products: Product[] = [];
  const assets: Asset[] = [];
  for (let i = 0; i < size.products; i++) {
    const product = catalogueProduct(seed, i, startDay, artists, labels, assets.length);
    products.push(product);
    assets.push(...product.assets);
  }
  const dsps = Array.from({ length: size.dsps }, (_, i) => dsp(seed, i));
  return { products, assets, artists, labels, dsps: distinctNames(dsps) };
}

function catalogueArtist(seed: number, i: number, startDay: number): CatalogueArtist {
  const rng = rngFor(seed, "artist", i);
  const id = 1000 + i * 4 + rng.int(0, 3);
  const uploaded = rng.chance(0.6);
  const square = rng.pick([640, 1000, 1400, 3000]);
  return {
    id,
    name: nameFor(seed, "artist", i),
    proprietary_id: rng.chance(0.3) ? `ART-${base62Id(rng, 8)}` : null,
    organization_id: rng.chance(0.9) ? 4711 : 4712,
    photo: {
      id: 50_000 + i,
      mimeType: uploaded ? rng.pick(["image/jpeg", "image/png"]) : null,
      modificationTime: instantOn(startDay - rng.int(30, 900), rng.int(0, 86_399)).slice(0, 19),
      originalFilename: uploaded ? `artist_${id}.jpg` : null,
      resolutionHeight: uploaded ? square : null,
      resolutionWidth: uploaded ? square : null,
      vaultHook: uploaded ? `vault/photos/${base62Id(rng, 16)}` : null,
      has_uploaded: uploaded,
    },
  };
}

function catalogueProduct(
  seed: number,
  i: number,
  startDay: number,
  artists: readonly CatalogueArtist[],
  labels: readonly Label[],
  firstAssetIndex: number,
): Product {
  const rng = rngFor(seed, "product", i);
  // Squaring skews ownership: a few artists own many products, as in a real catalogue.
  const artist = artists[Math.floor(rng.next() ** 2 * artists.length)] ?? artists[0];
  const labelIndex = rng.int(0, labels.length - 1);
  const label = labels[labelIndex];
  if (!artist || !label) throw new Error("catalogue needs at least one artist and one label");
  const trackCount = rng.int(1, 12);
  const labelRng = rngFor(seed, "label-codes", labelIndex);
  const country = labelRng.pick(ISRC_COUNTRIES);
  const registrant = registrantCode(labelRng);
  const assets: Asset[] = Array.from({ length: trackCount }, (_, t) => {
    const assetIndex = firstAssetIndex + t;
    const assetRng = rngFor(seed, "asset", assetIndex);
    return {
      id: 700_000 + assetIndex * 2 + assetRng.int(0, 1),
      isrc: isrcCode(country, registrant, assetIndex),
      title: trackCount === 1 ? nameFor(seed, "product", i) : nameFor(seed, "track", i, t),
      duration: assetRng.int(90, 420),
      track_number: t + 1,
      explicit: assetRng.chance(0.1),
    };
  });
  return {
    id: 100_000 + i * 3 + rng.int(0, 2),
    upc: upcCode(rng, i),
    title: nameFor(seed, "product", i),
    label: label.name,
    label_id: label.id,
    release_date: formatDay(startDay - rng.int(-10, 1800)),
    artist_id: artist.id,
    artist_name: artist.name,
    genre: rng.pick(GENRES),
    format: trackCount <= 3 ? "Single" : trackCount <= 6 ? "EP" : "Album",
    assets,
  };
}

function dsp(seed: number, i: number): Dsp {
  const rng = rngFor(seed, "dsp", i);
  const name = nameFor(seed, "dsp", i);
  return {
    id: 1 + i,
    name,
    code: rng.chance(0.5) ? `DSP${String(i + 1).padStart(3, "0")}` : null,
    state: rng.chance(0.5) ? rng.pick(["active", "active", "inactive"]) : null,
  };
}

/** Trend charts group by name, so names in one universe get a numeric suffix when repeated. */
function distinctNames<T extends { name: string }>(entities: T[]): T[] {
  const seen = new Map<string, number>();
  return entities.map((entity) => {
    const count = (seen.get(entity.name) ?? 0) + 1;
    seen.set(entity.name, count);
    return count === 1 ? entity : { ...entity, name: `${entity.name} ${count}` };
  });
}
