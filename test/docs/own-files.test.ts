// The project's documents point only at the project's own files: a reader of a clone can open
// every document they name.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { sourceFiles } from "../helpers/source-files.js";

const SKIPPED = new Set(["node_modules", "dist", ".git"]);

/** The project's files below `dir` whose name ends with `suffix`, at any depth. */
function filesEndingWith(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesEndingWith(path, suffix);
    return entry.name.endsWith(suffix) ? [path] : [];
  });
}

const documents = filesEndingWith(PROJECT_ROOT, ".md");
const ownNames = new Set(documents.map((path) => basename(path)));

/** The documents a text names: Markdown links to a `.md` file, and every name of one. */
function namedDocuments(text: string): { link: string[]; name: string[] } {
  return {
    link: [...text.matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1] ?? ""),
    name: [...text.matchAll(/(?<![\w/:.-])([\w./-]*[\w-]\.md)\b/g)].map((m) => m[1] ?? ""),
  };
}

describe("the project's documents and comments", () => {
  it("link only to documents of the project", () => {
    const broken = documents.flatMap((path) =>
      namedDocuments(readFileSync(path, "utf8"))
        .link.filter((link) => !/^[a-z]+:/.test(link))
        .filter((link) => !existsSync(resolve(dirname(path), link)))
        .map((link) => `${path.slice(PROJECT_ROOT.length + 1)}: ${link}`),
    );
    expect(documents.length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it("name only documents of the project", () => {
    const texts = [...documents, ...sourceFiles(resolve(PROJECT_ROOT, "src"))];
    const foreign = texts.flatMap((path) =>
      namedDocuments(readFileSync(path, "utf8"))
        .name.filter((name) => !ownNames.has(basename(name)))
        .map((name) => `${path.slice(PROJECT_ROOT.length + 1)}: ${name}`),
    );
    expect(foreign).toEqual([]);
  });
});
