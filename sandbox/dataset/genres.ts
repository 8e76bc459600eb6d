/** Genres of catalogue products and of the charts (which add "All Genres"). */
export const GENRES: readonly string[] = [
  "Pop",
  "Hip-Hop/Rap",
  "Electronic",
  "Rock",
  "R&B/Soul",
  "Latin",
  "Jazz",
  "Classical",
];
