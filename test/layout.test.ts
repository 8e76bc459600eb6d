import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./helpers/cli.js";

const folders = (dir: string) =>
  readdirSync(resolve(PROJECT_ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

describe("the test folders", () => {
  it("mirror src/: every part of it has tests of its own", () => {
    const tested = (part: string) =>
      folders("test").includes(part) &&
      readdirSync(resolve(PROJECT_ROOT, "test", part), { recursive: true }).some((file) =>
        String(file).endsWith(".test.ts"),
      );
    expect(folders("src").filter((part) => !tested(part))).toEqual([]);
  });

  it("are otherwise each described in test/README.md", () => {
    const readme = readFileSync(resolve(PROJECT_ROOT, "test/README.md"), "utf8");
    const parts = folders("src");
    const others = folders("test").filter((folder) => !parts.includes(folder));
    expect(others.filter((folder) => !readme.includes(`| \`test/${folder}\``))).toEqual([]);
  });
});
