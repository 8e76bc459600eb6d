import { describe, expect, it } from "vitest";
import { z } from "zod";
import { listEndpoint, objectEndpoint, operationNameOf } from "../../src/api/endpoint.js";

describe("an endpoint declared by its path", () => {
  it.each([
    ["/artist-stats/urls", "artistStats.urls"],
    ["/artist-stats/social_3-audience-stats", "artistStats.social3AudienceStats"],
    ["/artist-stats/short_video-audience-stats", "artistStats.shortVideoAudienceStats"],
    ["/payouts/pending", "payouts.pending"],
    ["/getTrendsTotal", "getTrendsTotal"],
  ])("names %s %s", (path, name) => {
    expect(operationNameOf(path)).toBe(name);
  });

  it("asks a GET of its path under the prefix, its parameters in the query", () => {
    const operation = listEndpoint("/artist-stats/urls", z.object({ artist_id: z.number() }));
    expect(operation.name).toBe("artistStats.urls");
    expect(operation.request({ artist_id: 7 })).toEqual({
      method: "GET",
      path: "/api/v1/artist-stats/urls",
      query: { artist_id: 7 },
    });
  });

  it("finds the list or the object in an enveloped answer", () => {
    const list = listEndpoint("/x", z.object({}));
    expect(list.parse({ obj: [{ a: 1 }, 2] }).records).toEqual([{ a: 1 }]);
    const object = objectEndpoint("/x", z.object({}));
    expect(object.parse({ obj: { a: 1 } }).data).toEqual({ a: 1 });
  });
});
