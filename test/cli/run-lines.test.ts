import { describe, expect, it } from "vitest";
import { lostRunLines, runDays, runStreams } from "../../src/cli/run-lines.js";
import { STREAMS } from "../../src/streams/registry.js";

describe("a run's streams and days, as status and requeue print them", () => {
  it("names a whole family by its name, the other streams by theirs, as --only takes them", () => {
    expect(runStreams(STREAMS.map((s) => s.name))).toBe("every stream");
    const trends = STREAMS.filter((s) => s.family === "trends").map((s) => s.name);
    expect(runStreams(["dsps", ...trends])).toBe("trends, dsps");
    expect(runStreams(["trend_totals"])).toBe("trend_totals");
    expect(runStreams(["no_such_stream", "trend_totals"])).toBe("trend_totals, no_such_stream");
  });

  it("gives the days as --from..--to, and says what a run with none covers", () => {
    expect(runDays({ kind: "backfill", range: { from: "2026-01-03", to: "2026-01-04" } })).toBe(
      "2026-01-03..2026-01-04",
    );
    expect(runDays({ kind: "retry", range: { to: "2026-01-04" } })).toBe("start_date..2026-01-04");
    expect(runDays({ kind: "retry", range: {} })).toBe("every day");
    expect(runDays({ kind: "schedule", range: {} })).toBe("incremental");
  });

  it("lists nothing when no run is lost", () => {
    expect(lostRunLines([])).toEqual([]);
  });
});
