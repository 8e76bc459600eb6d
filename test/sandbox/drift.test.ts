import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Payout, Sandbox, SandboxKnobs } from "../../sandbox/index.js";
import { startSandbox } from "../../sandbox/index.js";
import { call, ok } from "./call.js";

const NO_DRIFT: SandboxKnobs["drift"] = {
  extraFields: false,
  numbersAsStrings: false,
  nulls: false,
  renamedEnum: false,
  malformed: false,
  hostile: false,
};

describe("sandbox drift", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ today: "2026-02-15" });
  });
  afterAll(() => sandbox.close());

  async function drifted<T>(drift: Partial<SandboxKnobs["drift"]>, path: string): Promise<T> {
    sandbox.setKnobs({ drift: { ...NO_DRIFT, ...drift } });
    try {
      return await ok<T>(sandbox, path);
    } finally {
      sandbox.setKnobs({ drift: NO_DRIFT });
    }
  }

  it("extraFields adds unknown fields to records", async () => {
    const dsps = await drifted<Record<string, unknown>[]>(
      { extraFields: true },
      "/api/v1/getDsps/all",
    );
    for (const dsp of dsps) {
      expect(dsp).toMatchObject({ x_unexpected: expect.any(String) });
      expect(Object.keys(dsp).length).toBeGreaterThan(4);
    }
  });

  it("numbersAsStrings sends numeric fields as strings, and keeps paging fields numbers", async () => {
    const body = await drifted<{
      page: unknown;
      total: unknown;
      artist: { id: unknown; organization_id: unknown }[];
    }>({ numbersAsStrings: true }, "/api/v1/getArtistByName/a");
    expect(typeof body.page).toBe("number");
    expect(typeof body.total).toBe("number");
    const first = sandbox.data.artists().find((artist) => artist.name.toLowerCase().includes("a"));
    expect(body.artist[0]?.id).toBe(String(first?.id));
    expect(typeof body.artist[0]?.organization_id).toBe("string");
  });

  it("nulls sets some optional fields and counts to null", async () => {
    const cm = sandbox.data.socialArtists()[0]?.cm_artist;
    const dsps = await drifted<{ code: unknown; state: unknown }[]>(
      { nulls: true },
      "/api/v1/getDsps/all",
    );
    expect(dsps.filter((dsp) => dsp.code === null).length).toBeGreaterThan(
      sandbox.data.dsps().filter((dsp) => dsp.code === null).length,
    );
    const snapshot = await drifted<{ obj: Record<string, unknown> }>(
      { nulls: true },
      `/api/v1/artist-stats/social_3-audience-stats?artist_id=${cm}`,
    );
    const countries = snapshot.obj.top_countries as { followers: unknown }[];
    expect(countries.some((country) => country.followers === null)).toBe(true);
    expect(countries.some((country) => typeof country.followers === "number")).toBe(true);
  });

  it("renamedEnum renames the paid status and a metric", async () => {
    const payouts = await drifted<{ data: Payout[] }>({ renamedEnum: true }, "/api/v1/payouts");
    const statuses = payouts.data.map((payout) => payout.status as string);
    expect(statuses).toContain("completed");
    expect(statuses).not.toContain("paid");
    const cm = sandbox.data
      .socialArtists()
      .find(
        (artist) =>
          sandbox.data.statSeries(artist.cm_artist, "music_streaming_1", "2026-02-01", "2026-02-01")
            .link,
      )?.cm_artist;
    const stat = await drifted<{ obj: Record<string, unknown> }>(
      { renamedEnum: true },
      `/api/v1/artist-stats/stat/music_streaming_1?artist_id=${cm}`,
    );
    expect(stat.obj).toHaveProperty("monthly_listeners");
    expect(stat.obj).not.toHaveProperty("listeners");
  });

  it("malformed sends some measures and dates in forms no reader can type", async () => {
    const payouts = await drifted<{ data: Payout[] }>({ malformed: true }, "/api/v1/payouts");
    const amounts = payouts.data.map((payout) => String(payout.amount));
    const created = payouts.data.map((payout) => String(payout.created_at));
    const garbled = [...amounts, ...created].filter((v) => /,|\/|^n\/a$/.test(v));
    expect(garbled.length).toBeGreaterThan(0);
    // About a quarter, not all: the rest still arrive as sent before.
    expect(garbled.length).toBeLessThan(amounts.length);
    expect(amounts.some((amount) => /^\d+,\d{2}$/.test(amount))).toBe(true);
    expect(created.some((day) => /^\d{2}\/\d{2}\/\d{4}$/.test(day))).toBe(true);
    expect(amounts.some((amount) => /^\d+\.\d{2}$/.test(amount))).toBe(true);
  });

  it("leaves the dataset and error bodies untouched", async () => {
    await drifted({ numbersAsStrings: true, renamedEnum: true, nulls: true }, "/api/v1/payouts");
    expect(sandbox.data.payouts().some((payout) => payout.status === "paid")).toBe(true);
    sandbox.setKnobs({ drift: { ...NO_DRIFT, numbersAsStrings: true } });
    try {
      const refused = await call(sandbox, "/api/v1/payouts", {
        method: "POST",
        body: { amount: 99999 },
      });
      expect(refused.json).toEqual({ status: false, message: "Insufficient funds", type: 1 });
    } finally {
      sandbox.setKnobs({ drift: NO_DRIFT });
    }
  });
});
