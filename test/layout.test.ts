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

/** Vitest's global setup runs in the main process, before any fork: it may set what forks read. */
const GLOBAL_SETUP = ["test/helpers/template-warehouse.ts", "test/helpers/test-build.ts"];
/** What a file would leave behind in the fork the next file runs in (vitest.config.ts). */
const LEFT_BEHIND = [
  new RegExp(String.raw`\bvi\.(mock|doMock|stubGlobal|stubEnv|useFakeTimers)\b`),
  new RegExp(String.raw`process\.env(\.\w+|\[[^\]]+\])\s*=(?!=)`),
  new RegExp(String.raw`delete process\.env`),
];

describe("the test files", () => {
  it("share their forks: none mocks a module, stubs a global, fakes the clock or sets process.env", () => {
    const files = readdirSync(resolve(PROJECT_ROOT, "test"), { recursive: true })
      .map((file) => `test/${String(file)}`)
      .filter((file) => file.endsWith(".ts") && !GLOBAL_SETUP.includes(file));
    const leaving = files.flatMap((file) => {
      const text = readFileSync(resolve(PROJECT_ROOT, file), "utf8");
      return LEFT_BEHIND.filter((pattern) => pattern.test(text)).map((p) => `${file}: ${p.source}`);
    });
    expect(leaving).toEqual([]);
  });
});
