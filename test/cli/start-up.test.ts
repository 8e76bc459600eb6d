import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const MAIN = resolve(import.meta.dirname, "../../src/cli/main.ts");

/** Value imports and re-exports (not `import type`) of a module: relative files and packages. */
function valueImports(file: string): { files: string[]; packages: string[] } {
  const source = readFileSync(file, "utf8");
  const specifiers = [
    ...source.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;]*?\s+from\s+)?"([^"]+)";/gms),
  ].map((match) => match[1] ?? "");
  return {
    files: specifiers
      .filter((s) => s.startsWith("."))
      .map((s) => resolve(dirname(file), s.replace(/\.js$/, ".ts"))),
    packages: specifiers.filter((s) => !s.startsWith(".") && !s.startsWith("node:")),
  };
}

/** Every module `entry` loads before it runs, and the packages they use. */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const imports = valueImports(file);
    for (const name of imports.packages) packages.add(name);
    for (const next of imports.files) visit(next);
  };
  visit(entry);
  return { files, packages };
}

describe("the CLI's start-up", () => {
  it("loads no command's module and none of the clients: each command loads its own", () => {
    const { files, packages } = staticGraph(MAIN);
    const commands = [...files].filter((f) => f.includes("/src/cli/commands/"));
    expect(commands).toEqual([]);
    expect([...packages].sort()).toEqual(["commander"]);
  });

  it("connects a backfill to Redis before it loads the warehouse's client, which records the run", () => {
    const { packages } = staticGraph(
      resolve(import.meta.dirname, "../../src/cli/commands/backfill.ts"),
    );
    expect([...packages].filter((name) => ["kysely", "pg"].includes(name))).toEqual([]);
    expect(packages.has("bullmq")).toBe(true);
  });
});
