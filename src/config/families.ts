/** The order families are listed and summarised in. */
export const STREAM_FAMILIES = ["catalogue", "trends", "artist_stats", "royalties"] as const;
export type StreamFamily = (typeof STREAM_FAMILIES)[number];
