import { describe, expect, it } from "vitest";
import { catalogueArtistsNote } from "../../src/cli/catalogue-artists-note.js";
import type { CatalogueArtistsKnowledge, RequestPlan } from "../../src/runner/plan/request-plan.js";

const config = (artistNames: string[]) => ({ artist_names: artistNames });

/** A plan whose per-artist streams track one configured artist, knowing this of the catalogue. */
const plan = (catalogue: CatalogueArtistsKnowledge | null): RequestPlan => ({
  streams: [],
  artists: {
    ids: [7],
    configured: 1,
    linked: 0,
    resolved: 0,
    unresolved: 0,
    sources: catalogue?.kind === "unknown" ? ["artists"] : [],
    requestsEach: 41,
  },
  catalogue,
});

describe("the note of the catalogue's artists a plan leaves out", () => {
  it("is said, with why, when the plan could not ask what a first run's catalogue finds", () => {
    const unknown = plan({ kind: "unknown", reason: "first problem\nsecond problem" });
    expect(catalogueArtistsNote(unknown, config(["a"]))).toBe(
      "the total leaves out the artists the catalogue will find: artists has not synced yet, " +
        "and the plan could not ask what its 1 artist_names search finds (first problem; second problem). " +
        "Add up to 42 requests for each artist found: a look-up, and 41 of the per-artist streams if the statistics API knows it. " +
        "Run `etl sync --only catalogue` first for a plan that counts them.",
    );
  });

  it("is not said when nothing is left out", () => {
    // The catalogue synced, or no run finds its artists first: its links are as stored.
    expect(catalogueArtistsNote(plan(null), config(["a"]))).toBeNull();
    // Asked of the upstream: they are counted.
    const asked = plan({ kind: "asked", found: 3, known: 2, requests: 4 });
    expect(catalogueArtistsNote(asked, config(["a"]))).toBeNull();
    // No per-artist stream planned.
    const none: RequestPlan = { streams: [], artists: null, catalogue: null };
    expect(catalogueArtistsNote(none, config(["a"]))).toBeNull();
  });
});
