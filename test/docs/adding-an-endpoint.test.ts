// The guide to adding an endpoint shows real code, names files that exist, and counts what an
// endpoint takes: its table of files is held to the worked example, and no other file of the
// worker or the sandbox names that example.
import { existsSync, readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { sourceFiles } from "../helpers/source-files.js";

const read = (path: string) => readFileSync(resolve(PROJECT_ROOT, path), "utf8");
const guide = read("docs/adding-an-endpoint.md");

/** The TypeScript blocks of the guide. */
const blocks = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");

/** The files of the guide's table of an endpoint's files. */
const counted = [...guide.matchAll(/^\| `([\w-]+\/[\w./-]+\.(?:ts|md))` \|/gm)].map(
  (m) => m[1] ?? "",
);

/** What names the worked example in code: its path, its table, its stream or module imported. */
const NAMES_EXAMPLE =
  /["'`](?:\/api\/v1)?\/artist-stats\/urls["'`]|artist_stats\.urls|artist_stats_urls|\/urls\.js["']/;

describe("docs/adding-an-endpoint.md", () => {
  it("shows the urls stream's file as the code has it", () => {
    const code = read("src/streams/artist-stats/urls.ts");
    expect(blocks[0]).toBe(code.slice(code.indexOf("export const urlsOperation")));
  });

  it("shows the sandbox's module as the code has it", () => {
    const code = read("sandbox/endpoints/artist-stats/urls.ts");
    const block = blocks.find((text) => text.includes("sandboxEndpoint("));
    expect(block).toBe(code.slice(code.indexOf("const PARAMS")));
  });

  it("names only files that exist", () => {
    const named = [
      ...new Set(
        [...guide.matchAll(/`((?:src|sandbox|test|migrations|docs)\/[\w./-]+\.(?:ts|md))`/g)].map(
          (m) => m[1] ?? "",
        ),
      ),
    ];
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((path) => !existsSync(resolve(PROJECT_ROOT, path)))).toEqual([]);
  });

  it("counts an endpoint's files in its table, each holding the example", () => {
    const count = /is \*\*(\d+) files\*\*/.exec(guide)?.[1];
    expect(counted.length).toBeGreaterThanOrEqual(5);
    expect(Number(count)).toBe(counted.length);
    for (const file of counted) expect(read(file), file).toMatch(NAMES_EXAMPLE);
    const migration = counted.find((file) => file.startsWith("migrations/")) ?? "";
    expect(read(migration)).toMatch(/create table artist_stats\.urls\b/);
  });

  it("finds the example in no file of the worker or the sandbox but those it counts", () => {
    const naming = ["src", "sandbox"]
      .flatMap((folder) => sourceFiles(resolve(PROJECT_ROOT, folder)))
      .filter((file) => NAMES_EXAMPLE.test(readFileSync(file, "utf8")))
      .map((file) => relative(PROJECT_ROOT, file))
      .sort();
    expect(naming).toEqual(counted.filter((file) => /^(src|sandbox)\//.test(file)).sort());
  });

  it("says which streams are written by hand: those making several requests a page", () => {
    expect(guide).toContain("Every other stream is a declaration.");
    const handWritten = sourceFiles(resolve(PROJECT_ROOT, "src/streams"))
      .filter((file) => !/streams\/(stream|endpoint-stream)\.ts$/.test(file))
      .filter((file) => readFileSync(file, "utf8").includes("defineStream<"))
      .map((file) => relative(PROJECT_ROOT, file))
      .sort();
    expect(handWritten).toEqual([
      "src/streams/artist-stats/artists.ts",
      "src/streams/catalogue/artists.ts",
    ]);
  });
});
