import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { placementEvidence } from "../../src/analytics/placement-evidence.js";
import type { Candidate } from "../../src/analytics/role-candidates.js";
import { PLACEMENT_REMOVED_AT, PLAYLIST_FOLLOWERS } from "../../src/analytics/roles.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

// A follower count is one whole number of at least 0 per playlist, the same on each of its
// placements of the latest snapshot. The sandbox lists each playlist once a day, so only
// placements written here tell a candidate that varies within a playlist from one that does not.

let warehouse: TestWarehouse;

const CANDIDATES: Candidate[] = [
  { column: "playlist__followers", field: ["playlist", "followers"], type: "bigint" },
  { column: "playlist__position", field: ["playlist", "position"], type: "bigint" },
  { column: "playlist__fans", field: ["playlist", "fans"], type: "text" },
  { column: "playlist__listeners", field: ["playlist", "listeners"], type: "text" },
  { column: "playlist__reach", field: ["playlist", "reach"], type: "numeric" },
];

interface Values {
  readonly followers: number;
  readonly position: number;
  readonly fans: string;
  readonly listeners: string | null;
  readonly reach: string;
}

/** One placement's parameters: its playlist and track, its day and the candidates' values. */
function placement(playlist: string, track: string, day: string, values: Values): unknown[] {
  const { followers, position, fans, listeners, reach } = values;
  return [`${playlist}|${track}`, day, followers, position, fans, listeners, reach];
}

beforeAll(async () => {
  warehouse = await createTestWarehouse("placement_evidence");
  await warehouse.query(`alter table artist_stats.playlist_placements
    add column playlist__followers bigint, add column playlist__position bigint,
    add column playlist__fans text, add column playlist__listeners text,
    add column playlist__reach numeric`);
  const rows = [
    // Latest snapshot: p1 on two placements, p2 on three, p3 on one.
    placement("p1", "t1", "2026-02-02", {
      followers: 100,
      position: 1,
      fans: "7",
      listeners: "x",
      reach: "1000",
    }),
    placement("p1", "t2", "2026-02-02", {
      followers: 100,
      position: 2,
      fans: "7",
      listeners: "x",
      reach: "1000",
    }),
    placement("p2", "t1", "2026-02-02", {
      followers: 0,
      position: 3,
      fans: "8",
      listeners: "5",
      reach: "2.5",
    }),
    placement("p2", "t2", "2026-02-02", {
      followers: 0,
      position: 3,
      fans: "9",
      listeners: "5",
      reach: "2.5",
    }),
    placement("p2", "t3", "2026-02-02", {
      followers: 0,
      position: 3,
      fans: "8",
      listeners: "5",
      reach: "2.5",
    }),
    placement("p3", "t1", "2026-02-02", {
      followers: -4,
      position: 9,
      fans: "-1",
      listeners: null,
      reach: "7",
    }),
    // An older snapshot, where p1's followers differed: not the latest, not read.
    placement("p1", "t1", "2026-02-01", {
      followers: 90,
      position: 1,
      fans: "7",
      listeners: "x",
      reach: "1000",
    }),
    placement("p1", "t2", "2026-02-01", {
      followers: 95,
      position: 2,
      fans: "7",
      listeners: "x",
      reach: "1000",
    }),
  ];
  for (const row of rows) {
    await warehouse.query(
      `insert into artist_stats.playlist_placements (artist_id, kind, platform, status,
         playlist_key, snapshot_date, raw, playlist__followers, playlist__position,
         playlist__fans, playlist__listeners, playlist__reach)
       values (1, 'editorial', 'music_streaming_1', 'current', $1, $2, '{}', $3, $4, $5, $6, $7)`,
      row,
    );
  }
});

afterAll(async () => {
  await warehouse?.drop();
});

describe("the evidence of a playlist's followers", () => {
  it("counts the playlists of the latest snapshot where each candidate is one whole number of at least 0", async () => {
    const evidence = await placementEvidence(
      warehouse.db as Kysely<unknown>,
      PLAYLIST_FOLLOWERS,
      CANDIDATES,
    );
    expect(evidence.rows).toBe(6);
    const byColumn = Object.fromEntries(
      evidence.candidates.map((c) => [
        c.candidate.column,
        { matched: c.matched, checked: c.checked, excluded: c.excluded },
      ]),
    );
    expect(byColumn).toEqual({
      // p1 and p2 each have one count; p3's is below 0.
      playlist__followers: { matched: 2, checked: 3, excluded: null },
      // p1's placements differ; p2's and p3's agree.
      playlist__position: { matched: 2, checked: 3, excluded: expect.any(String) },
      // Whole numbers in text: p2's differ, p3's is below 0.
      playlist__fans: { matched: 1, checked: 3, excluded: null },
      // p1's is no number and p3 has none: p2 alone is checked.
      playlist__listeners: { matched: 1, checked: 1, excluded: null },
      // p2's 2.5 is a number but no count.
      playlist__reach: { matched: 2, checked: 2, excluded: null },
    });
  });

  it("of a removal time, rules nothing out: every playlist matches, the name decides", async () => {
    const evidence = await placementEvidence(
      warehouse.db as Kysely<unknown>,
      PLACEMENT_REMOVED_AT,
      CANDIDATES.slice(0, 2),
    );
    expect(evidence.rows).toBe(6);
    expect(evidence.candidates.map((c) => [c.matched, c.checked])).toEqual([
      [3, 3],
      [3, 3],
    ]);
  });
});
