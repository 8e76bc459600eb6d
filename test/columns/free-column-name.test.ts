import { describe, expect, it } from "vitest";
import {
  freeColumnName,
  type NameHolder,
  PIPELINE,
  whyNamed,
} from "../../src/columns/free-column-name.js";

/** A table's names: the pipeline's own columns, and the discovered columns by their field. */
function table(ours: readonly string[], discovered: Readonly<Record<string, string[]>> = {}) {
  return (name: string): NameHolder | undefined => {
    const field = discovered[name];
    if (field) return { field };
    return ours.includes(name) ? PIPELINE : undefined;
  };
}

const OURS = ["income_id", "period_start", "raw", "synced_at"];

describe("a new discovered column's name", () => {
  it("is its field's own where free, with nothing to explain", () => {
    const named = freeColumnName(["createdAt"], table(OURS));
    expect(named).toEqual({ column: "created_at", passedOver: [] });
    expect(whyNamed(named)).toBeNull();
  });

  it("says where it comes from when a column of the pipeline's own has its name", () => {
    const named = freeColumnName(["syncedAt"], table(OURS));
    expect(named.column).toBe("upstream_synced_at");
    expect(whyNamed(named)).toBe(
      "Named upstream_synced_at because synced_at is one of the pipeline's own columns.",
    );
    expect(freeColumnName(["raw"], table(OURS)).column).toBe("upstream_raw");
  });

  it("is numbered when that name is taken too, each name passed over explained", () => {
    const named = freeColumnName(
      ["synced_at"],
      table(OURS, { upstream_synced_at: ["syncedAt"], upstream_synced_at_2: ["sync", "edAt"] }),
    );
    expect(named.column).toBe("upstream_synced_at_3");
    expect(whyNamed(named)).toBe(
      'Named upstream_synced_at_3 because synced_at is one of the pipeline\'s own columns, upstream_synced_at holds the upstream\'s field "syncedAt" and upstream_synced_at_2 holds the upstream\'s field "sync"."edAt".',
    );
    // A prefixed name that is the pipeline's own is passed over the same way.
    expect(freeColumnName(["syncedAt"], table([...OURS, "upstream_synced_at"])).column).toBe(
      "upstream_synced_at_2",
    );
  });

  it("is numbered, never prefixed, when another field's column has its name", () => {
    const named = freeColumnName(["foo_bar"], table(OURS, { foo_bar: ["fooBar"] }));
    expect(named.column).toBe("foo_bar_2");
    expect(whyNamed(named)).toBe(
      'Named foo_bar_2 because foo_bar holds the upstream\'s field "fooBar".',
    );
    // A field named as another's prefixed column: numbered after that name.
    expect(
      freeColumnName(["upstreamSyncedAt"], table(OURS, { upstream_synced_at: ["syncedAt"] }))
        .column,
    ).toBe("upstream_synced_at_2");
  });

  it("fits Postgres's 63 bytes, prefixed and numbered, each long field a name of its own", () => {
    const long = (end: string) => [`${"x".repeat(70)}${end}`];
    const own = (field: string[]) => freeColumnName(field, table([])).column;
    const prefixed = (field: string[]) => freeColumnName(field, table([own(field)])).column;
    expect(prefixed(long("a"))).toMatch(/^upstream_x{45}_[0-9a-f]{8}$/);
    expect(prefixed(long("a"))).not.toBe(prefixed(long("b")));
    const numbered = freeColumnName(long("a"), table([own(long("a")), prefixed(long("a"))]));
    expect(numbered.column).toMatch(/^upstream_x{45}_[0-9a-f]{6}_2$/);
    for (const name of [own(long("a")), prefixed(long("a")), numbered.column]) {
      expect(Buffer.byteLength(name)).toBe(63);
    }
  });

  it("prefixes a name made for a leading digit without a doubled _", () => {
    expect(freeColumnName(["7day"], table(["_7day"])).column).toBe("upstream_7day");
  });
});
