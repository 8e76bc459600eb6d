import type { Stream } from "../stream.js";
import { artists } from "./artists.js";
import { dsps } from "./dsps.js";
import { products } from "./products.js";
import { territories } from "./territories.js";

/** The catalogue family, in run order. Every run refreshes it in full; nothing is deleted. */
export const catalogueStreams: readonly Stream[] = [products, artists, territories, dsps];
