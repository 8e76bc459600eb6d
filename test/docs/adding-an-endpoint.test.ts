// The guide to adding an endpoint shows real code: its declaration is the stream's, the files it
// names exist, and what it counts is what the registry holds.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { STREAMS } from "../../src/streams/registry.js";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { sourceFiles } from "../helpers/source-files.js";

const read = (path: string) => readFileSync(resolve(PROJECT_ROOT, path), "utf8");
const guide = read("docs/adding-an-endpoint.md");

/** The TypeScript blocks of the guide. */
const blocks = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");

describe("docs/adding-an-endpoint.md", () => {
  it("shows the urls stream's declaration as the code has it", () => {
    const code = read("src/streams/artist-stats/urls.ts");
    const declaration = code.slice(code.indexOf("export const urls"));
    expect(blocks[0]).toBe(declaration);
  });

  it("shows the operation line as the code has it", () => {
    const line = blocks.find((block) => block.includes("listOperation("))?.trim() ?? "";
    expect(read("src/api/operations/artist-stats.ts")).toContain(line);
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

  it("counts the streams that are declarations", () => {
    const declared = /(\d+) of the (\d+) streams are declarations/.exec(guide);
    expect(Number(declared?.[2])).toBe(STREAMS.length);
    // The others are written with defineStream, one stream to a file.
    const handWritten = sourceFiles(resolve(PROJECT_ROOT, "src/streams"))
      .filter((file) => !/streams\/(stream|endpoint-stream)\.ts$/.test(file))
      .filter((file) => readFileSync(file, "utf8").includes("defineStream<"));
    expect(handWritten.length).toBeGreaterThan(0);
    expect(Number(declared?.[1])).toBe(STREAMS.length - handWritten.length);
  });
});
