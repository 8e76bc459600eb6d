import { readFileSync } from "node:fs";
import { dirname, join, normalize, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./helpers/cli.js";
import { sourceFiles } from "./helpers/source-files.js";

/**
 * The layers of src/, lowest first, written down once: a module imports from its own layer and
 * those below, never from above. What every part shares at the bottom; the transport, then the
 * operations over it; the webhooks told of events; the configuration (it names the spec's
 * values); the warehouse; the discovered columns, what a record's fields make of a table's
 * columns (their names, kinds, widening and DDL); the analytics views built over it by meaning;
 * the streams declared over all of those; the runner that executes any stream (plan, extract,
 * land, load, replay), which no declaration knows; what watches and serves them; the composition
 * of one process's clients; the queue; the commands.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["time", "async", "logging", "json", "errors.ts", "similar-names.ts", "process-identity.ts"],
  ["package-version.ts"],
  ["http"],
  ["api"],
  ["notify"],
  ["config"],
  ["warehouse"],
  ["columns"],
  ["analytics"],
  ["streams"],
  ["runner"],
  ["metrics"],
  ["operator"],
  ["app-context.ts"],
  ["jobs"],
  ["cli"],
];

const SRC = resolve(PROJECT_ROOT, "src");
const SANDBOX = resolve(PROJECT_ROOT, "sandbox");
const layerOf = new Map(LAYERS.flatMap((parts, i) => parts.map((part) => [part, i] as const)));

/** The part of src/ a file belongs to: its folder, or the file itself at the top. */
const partOf = (file: string) => file.slice(SRC.length + 1).split("/")[0] ?? "";

/** The project files a file imports, statically or dynamically, types included. */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g)];
  return specifiers
    .map((m) => normalize(join(dirname(file), (m[1] ?? "").replace(/\.js$/, ".ts"))))
    .filter((target) => known.has(target));
}

const files = sourceFiles(SRC);
// The sandbox is no layer of the worker, but a cycle there is as much a word without a home.
const everyFile = [...files, ...sourceFiles(SANDBOX)];
const graph = new Map(everyFile.map((file) => [file, importsOf(file, new Set(everyFile))]));
const shown = (file: string) => file.slice(PROJECT_ROOT.length + 1);

/** The import cycles: each strongly connected set of more than one file (Tarjan). */
function cycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      members.push(shown(top));
      if (top === file) break;
    }
    if (members.length > 1) found.push(members.sort());
  };
  for (const file of everyFile) if (!index.has(file)) visit(file);
  return found;
}

describe("the layers of src/", () => {
  it("name every part of src/ once", () => {
    const parts = [...new Set(files.map(partOf))];
    expect(parts.filter((part) => !layerOf.has(part))).toEqual([]);
    expect(layerOf.size).toBe(LAYERS.flat().length);
  });

  it("are kept: no module imports from a layer above its own", () => {
    // The scanner sees imports: the commands import the queue, the queue the streams.
    expect(graph.get(join(SRC, "cli/commands/backfill.ts"))?.map(partOf)).toContain("jobs");
    const upward = files.flatMap((file) =>
      (graph.get(file) ?? [])
        .filter((target) => (layerOf.get(partOf(target)) ?? 0) > (layerOf.get(partOf(file)) ?? 0))
        .map((target) => `${shown(file)} -> ${shown(target)}`),
    );
    expect(upward).toEqual([]);
  });

  it("hold no import cycle, nor does the sandbox", () => {
    expect(cycles()).toEqual([]);
  });
});
