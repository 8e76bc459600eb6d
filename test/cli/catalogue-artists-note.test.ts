import { describe, expect, it } from "vitest";
import { catalogueArtistsNote } from "../../src/cli/catalogue-artists-note.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { selectStreams, STREAMS } from "../../src/streams/registry.js";
import type { RequestPlan } from "../../src/streams/request-plan.js";

const config = (artistNames: string[]) =>
  etlConfigSchema.parse({ start_date: "2026-01-01", artist_names: artistNames });

/** A plan whose per-artist streams track one configured artist; `sources` not synced yet. */
const plan = (sources: string[]): RequestPlan => ({
  streams: [],
  artists: {
    ids: [7],
    configured: 1,
    linked: 0,
    resolved: 0,
    unresolved: 0,
    sources,
    requestsEach: 41,
  },
});

describe("the note of the catalogue's artists a plan leaves out", () => {
  it("is said when the run syncs the catalogue's artists for the first time", () => {
    expect(catalogueArtistsNote(plan(["artists"]), STREAMS, config(["a"]))).toBe(
      "the total leaves out the artists the catalogue will find: artists has not synced yet, " +
        "and its 1 artist_names search may find any number. " +
        "Each adds a look-up, and 41 requests of the per-artist streams if the statistics API knows it. " +
        "Run `etl sync --only catalogue` first for a plan that counts them.",
    );
  });

  it("is not said when nothing is left out", () => {
    // The catalogue synced: its links are counted.
    expect(catalogueArtistsNote(plan([]), STREAMS, config(["a"]))).toBeNull();
    // No artist name to search for: the catalogue finds no artist.
    expect(catalogueArtistsNote(plan(["artists"]), STREAMS, config([]))).toBeNull();
    // A run without the catalogue's artists tracks the artists as they are.
    const perArtistOnly = selectStreams(["artist_stats"]);
    expect(catalogueArtistsNote(plan(["artists"]), perArtistOnly, config(["a"]))).toBeNull();
    // No per-artist stream planned.
    const none: RequestPlan = { streams: [], artists: null };
    expect(catalogueArtistsNote(none, STREAMS, config(["a"]))).toBeNull();
  });
});
