import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./helpers/cli.js";
import { sourceFiles } from "./helpers/source-files.js";

/** Longer than this, a function is several things unless a comment above it says why not. */
const MAX_LINES = 60;
/** Longer than this, a class or a file holds more than one concept. */
const MAX_CLASS_LINES = 200;
const MAX_FILE_LINES = 350;
/** The words that comment starts with, so the reason is easy to find and to review. */
const REASON = /\/\/ Long because /;

interface LongFunction {
  readonly where: string;
  readonly lines: number;
}

/** Functions, methods and arrow functions of a file over MAX_LINES without a reason given. */
function longFunctions(file: string, text: string): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - first + 1;
      // The comment may stand above the function or above what holds it (a const, a property).
      const holder = ts.isVariableDeclaration(node.parent)
        ? node.parent.parent.parent
        : ts.isPropertyAssignment(node.parent)
          ? node.parent
          : node;
      const comments = text.slice(holder.getFullStart(), holder.getStart(source));
      if (lines > MAX_LINES && !REASON.test(comments)) {
        found.push({ where: `${file}:${first}`, lines });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Classes of a file over MAX_CLASS_LINES, and the file itself over MAX_FILE_LINES. */
function largeParts(file: string, text: string): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const found: LongFunction[] = [];
  const fileLines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (fileLines > MAX_FILE_LINES) found.push({ where: file, lines: fileLines });
  const visit = (node: ts.Node): void => {
    if (ts.isClassLike(node)) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - first + 1;
      if (lines > MAX_CLASS_LINES) found.push({ where: `${file}:${first}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = () =>
  sourceFiles(resolve(PROJECT_ROOT, "src")).map((file) => ({
    name: file.slice(PROJECT_ROOT.length + 1),
    text: readFileSync(file, "utf8"),
  }));

describe("files and classes in src/", () => {
  it(`hold one concept: a class at most ${MAX_CLASS_LINES} lines, a file at most ${MAX_FILE_LINES}`, () => {
    expect(files().flatMap(({ name, text }) => largeParts(name, text))).toEqual([]);
  });

  it("are measured as they are written", () => {
    const members = (n: number) =>
      Array.from({ length: n }, (_, i) => `  m${i} = ${i};`).join("\n");
    expect(largeParts("probe.ts", `class C {\n${members(MAX_CLASS_LINES - 2)}\n}\n`)).toEqual([]);
    expect(
      largeParts("probe.ts", `export class C {\n${members(MAX_CLASS_LINES - 1)}\n}\n`),
    ).toEqual([{ where: "probe.ts:1", lines: MAX_CLASS_LINES + 1 }]);
    const lines = (n: number) =>
      Array.from({ length: n }, (_, i) => `const v${i} = ${i};\n`).join("");
    expect(largeParts("probe.ts", lines(MAX_FILE_LINES))).toEqual([]);
    expect(largeParts("probe.ts", lines(MAX_FILE_LINES + 1))).toEqual([
      { where: "probe.ts", lines: MAX_FILE_LINES + 1 },
    ]);
  });
});

describe("functions in src/", () => {
  it(`are at most ${MAX_LINES} lines, or say why above them ("// Long because ...")`, () => {
    const long = files().flatMap(({ name, text }) => longFunctions(name, text));
    expect(long).toEqual([]);
  });

  it("are measured whatever their form, and a reason above one is accepted", () => {
    const body = Array.from({ length: MAX_LINES - 1 }, (_, i) => `  const v${i} = ${i};`);
    const forms = [
      (reason: string) => `${reason}export function long(): void {\n${body.join("\n")}\n}\n`,
      (reason: string) => `${reason}export const long = (): void => {\n${body.join("\n")}\n};\n`,
      (reason: string) => `class C {\n  ${reason}long(): void {\n${body.join("\n")}\n  }\n}\n`,
      (reason: string) =>
        `export const s = {\n  ${reason}read: () => {\n${body.join("\n")}\n  },\n};\n`,
    ];
    for (const form of forms) {
      expect(longFunctions("probe.ts", form(""))).toHaveLength(1);
      expect(longFunctions("probe.ts", form("// Long because it is one table.\n"))).toEqual([]);
    }
    // One line fewer is within the limit.
    const short = `export function f(): void {\n${body.slice(1).join("\n")}\n}\n`;
    expect(longFunctions("probe.ts", short)).toEqual([]);
  });
});
