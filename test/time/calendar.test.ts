import { describe, expect, it } from "vitest";
import {
  addDays,
  daysBetween,
  daysFrom,
  isCalendarDate,
  isLocalDateTime,
  utcDayOf,
  utcMinuteOf,
} from "../../src/time/calendar.js";

describe("calendar days", () => {
  it("accepts real days written YYYY-MM-DD only", () => {
    for (const day of ["2026-01-01", "2024-02-29", "2000-02-29", "2026-12-31", "0001-01-01"]) {
      expect(isCalendarDate(day), day).toBe(true);
    }
    const wrong = [
      "2026-02-29",
      "2100-02-29",
      "2026-02-30",
      "2026-04-31",
      "2026-2-3",
      "2026-13-01",
    ];
    for (const day of [
      ...wrong,
      "2026-00-10",
      "2026-01-00",
      "0000-01-01",
      "2026-01-1x",
      "20260101",
      "",
    ]) {
      expect(isCalendarDate(day), day).toBe(false);
    }
    expect(isLocalDateTime("2026-03-01T23:59:59")).toBe(true);
    expect(isLocalDateTime("2026-02-30T00:00:00")).toBe(false);
    expect(isLocalDateTime("2026-03-01T24:00:00")).toBe(false);
    expect(isLocalDateTime("2026-03-01T00:00:00Z")).toBe(false);
  });

  it("counts across months, leap days, years and daylight-saving changes", () => {
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2026-02-28", 1)).toBe("2026-03-01");
    expect(addDays("2026-01-01", -1)).toBe("2025-12-31");
    expect(addDays("2026-03-28", 2)).toBe("2026-03-30");
    expect(addDays("2026-10-24", 2)).toBe("2026-10-26");
    expect(addDays("2026-01-05", 0)).toBe("2026-01-05");
    expect(daysFrom("2026-01-01", "2027-01-01")).toBe(365);
    expect(daysFrom("2024-03-01", "2024-02-01")).toBe(-29);
    expect(daysFrom("2026-03-28", "2026-03-30")).toBe(2);
  });

  it("lists the days of a range inclusive, none when it ends before it starts", () => {
    expect(daysBetween("2026-02-27", "2026-03-02")).toEqual([
      "2026-02-27",
      "2026-02-28",
      "2026-03-01",
      "2026-03-02",
    ]);
    expect(daysBetween("2026-03-01", "2026-03-01")).toEqual(["2026-03-01"]);
    expect(daysBetween("2026-03-02", "2026-03-01")).toEqual([]);
    expect(daysBetween("2025-01-01", "2025-12-31")).toHaveLength(365);
  });

  it("takes the UTC day of an instant, whatever its local day", () => {
    expect(utcDayOf(new Date("2026-03-01T23:30:00-05:00"))).toBe("2026-03-02");
    expect(utcDayOf(new Date("2026-03-02T00:30:00+02:00"))).toBe("2026-03-01");
  });

  it("shows an instant to the minute in UTC", () => {
    expect(utcMinuteOf(new Date("2026-03-01T23:30:59-05:00"))).toBe("2026-03-02 04:30");
  });
});
