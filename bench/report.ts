import { execFileSync } from "node:child_process";
import { cpus, freemem, totalmem, release, type } from "node:os";

/** One figure of a section, as printed and as written to bench/results.json. */
export interface Figure {
  readonly name: string;
  readonly value: number | string;
  readonly unit?: string;
}

/** A target from the issue, checked against a figure of the same run. */
export interface Target {
  readonly name: string;
  readonly value: number;
  readonly goal: string;
  readonly met: boolean;
}

export interface SectionResult {
  readonly section: string;
  readonly figures: readonly Figure[];
  readonly targets: readonly Target[];
}

export function atLeast(name: string, value: number, goal: number): Target {
  return { name, value: round(value, 3), goal: `>= ${goal}`, met: value >= goal };
}

export function atMost(name: string, value: number, goal: number): Target {
  return { name, value: round(value, 3), goal: `<= ${goal}`, met: value <= goal };
}

export function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** What the numbers were measured on: they are ratios, but the machine still explains them. */
export function machine(postgresVersion: string) {
  const redis = (() => {
    try {
      return execFileSync("redis-server", ["--version"], { encoding: "utf8" }).trim();
    } catch {
      return "unknown";
    }
  })();
  const cpu = cpus();
  return {
    os: `${type()} ${release()}`,
    cpu: `${cpu.length} × ${cpu[0]?.model ?? "unknown"}`,
    memoryGiB: round(totalmem() / 2 ** 30),
    freeMemoryGiB: round(freemem() / 2 ** 30),
    node: process.version,
    postgres: postgresVersion,
    redis,
  };
}

/** The sections as one table: section, figure or target, value, goal, met. */
export function printTable(results: readonly SectionResult[]): string {
  const rows: string[][] = [["section", "measure", "value", "target", "met"]];
  for (const result of results) {
    for (const figure of result.figures) {
      rows.push([
        result.section,
        figure.name,
        `${figure.value}${figure.unit ? ` ${figure.unit}` : ""}`,
        "",
        "",
      ]);
    }
    for (const target of result.targets) {
      rows.push([
        result.section,
        target.name,
        String(target.value),
        target.goal,
        target.met ? "met" : "NOT MET",
      ]);
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
