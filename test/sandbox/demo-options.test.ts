import { describe, expect, it } from "vitest";
import {
  DEFAULT_DEMO_DATABASE,
  DemoUsageError,
  demoOptions,
} from "../../sandbox/demo/demo-options.js";

describe("the demo's options", () => {
  it("name music_etl_demo when neither --database nor DEMO_DATABASE is set", () => {
    expect(DEFAULT_DEMO_DATABASE).toBe("music_etl_demo");
    expect(demoOptions([], {})).toEqual({ database: "music_etl_demo" });
    expect(demoOptions([], { DEMO_DATABASE: " " })).toEqual({ database: "music_etl_demo" });
  });

  it("take DEMO_DATABASE, and --database over it", () => {
    expect(demoOptions([], { DEMO_DATABASE: "from_env" })).toEqual({ database: "from_env" });
    expect(demoOptions(["--database", "from_flag"], { DEMO_DATABASE: "from_env" })).toEqual({
      database: "from_flag",
    });
  });

  it("are null when help is asked for", () => {
    expect(demoOptions(["--help"], {})).toBeNull();
    expect(demoOptions(["-h"], {})).toBeNull();
  });

  it.each([
    ["a name Postgres would cut short", "d".repeat(64)],
    ["a quote", 'demo"; drop database x; --'],
    ["a leading digit", "1demo"],
    ["an empty name", ""],
  ])("refuse %s", (_what, name) => {
    expect(() => demoOptions(["--database", name], {})).toThrow(DemoUsageError);
  });

  it("refuse an option they do not know", () => {
    expect(() => demoOptions(["--databse", "x"], {})).toThrow(DemoUsageError);
  });
});
