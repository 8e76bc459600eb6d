import { weekday } from "../days.js";
import { rngFor } from "../prng.js";
import type {
  SaleType,
  SelectionType,
  TrendChart,
  TrendItem,
  TrendListItem,
  TrendTotals,
} from "./records.js";
import { lateSalesCount } from "./revision.js";
import { strideWalk } from "./stride-walk.js";

export const SELECTION_TYPES: readonly SelectionType[] = [
  "dsp",
  "territory",
  "label",
  "product",
  "asset",
];
export const SALE_TYPES: readonly SaleType[] = ["stream", "download"];

export interface TrendEntity {
  id: number | string;
  name: string;
}

export type TrendUniverses = Record<SelectionType, readonly TrendEntity[]>;

/** Counts set by tests for one (day, selection type, sale type), by entity id as text. */
interface Override {
  day: number;
  type: SelectionType;
  sale: SaleType;
  counts: Map<string, number>;
}

/** Share of a universe with sales on a given day (at most the size's trendItemsCap entities). */
const COVERAGE: Record<SelectionType, { min: number; max: number }> = {
  dsp: { min: 0.6, max: 0.9 },
  territory: { min: 0.5, max: 0.9 },
  label: { min: 0.6, max: 1 },
  product: { min: 0.4, max: 0.7 },
  asset: { min: 0.35, max: 0.6 },
};
/** Streams a day across a universe, whatever its size; downloads are a small fraction of it. */
const DAILY_STREAMS = 2_000_000;
const STREAMS_PER_DOWNLOAD = 400;
/** Mean of the popularity weights 0.02 + u⁴, so a day's counts add up to about DAILY_STREAMS. */
const MEAN_WEIGHT = 0.22;

/**
 * Sales per (day, selection type, sale type). Each day is generated on its own from the seed
 * (a stride walk picks which entities sold), so a range costs O(days × entities that sold),
 * whatever the size of the dataset. Overrides set by tests sit on top of the generated days.
 */
export class TrendSales {
  private readonly overrides = new Map<string, Override>();
  private readonly entityIndex = new Map<SelectionType, Map<string, TrendEntity>>();
  private readonly popularity = new Map<SelectionType, Float64Array>();
  private revision = 0;
  private lateDays: ReadonlySet<number> = new Set();

  constructor(
    private readonly seed: number,
    private readonly firstDay: number,
    private readonly lastDay: number,
    private readonly cap: number,
    private readonly universes: () => TrendUniverses,
  ) {}

  /** Late sales: from `revision` 1 on, every count of `days` grows (see revision.ts). */
  setRevision(revision: number, days: readonly number[]): void {
    this.revision = revision;
    this.lateDays = new Set(days);
  }

  /** Entities with sales on one day, in generation order, late sales then overrides applied. */
  dayItems(day: number, type: SelectionType, sale: SaleType): TrendItem[] {
    const items = this.withLateSales(day, type, sale, this.generatedDay(day, type, sale));
    const override = this.overrides.get(overrideKey(day, type, sale));
    if (!override) return items;
    const pending = new Map(override.counts);
    const result: TrendItem[] = [];
    for (const item of items) {
      const count = pending.get(String(item.id));
      pending.delete(String(item.id));
      if (count === undefined) result.push(item);
      else if (count > 0) result.push({ ...item, count });
    }
    for (const [id, count] of pending) {
      const entity = this.entity(type, id);
      if (entity && count > 0) result.push({ id: entity.id, name: entity.name, count });
    }
    return result;
  }

  /** Sets one entity's count for one day; 0 removes it from that day. */
  setCount(day: number, type: SelectionType, sale: SaleType, id: number | string, count: number) {
    if (!this.entity(type, String(id))) throw new Error(`no ${type} with id ${id}`);
    if (!Number.isInteger(count) || count < 0) throw new Error("count must be an integer >= 0");
    const key = overrideKey(day, type, sale);
    const override = this.overrides.get(key) ?? { day, type, sale, counts: new Map() };
    override.counts.set(String(id), count);
    this.overrides.set(key, override);
  }

  /** Every entity with sales in [start, end], summed, by count desc then id. */
  list(start: number, end: number, type: SelectionType, sale: SaleType): TrendListItem[] {
    // Ids of one universe are all numbers or all codes, so the raw id is a safe key.
    const sums = new Map<number | string, TrendItem>();
    let total = 0;
    for (const day of this.daysWithSales(start, end, type, sale)) {
      for (const item of this.dayItems(day, type, sale)) {
        const sum = sums.get(item.id);
        if (sum) sum.count += item.count;
        else sums.set(item.id, item);
        total += item.count;
      }
    }
    return [...sums.values()]
      .sort((a, b) => b.count - a.count || compareIds(a.id, b.id))
      .map((item) => ({ ...item, percentage: percent(item.count, total) }));
  }

  /** Range sums, with the change against the previous period of equal length. */
  totals(start: number, end: number, type: SelectionType): TrendTotals {
    const length = end - start + 1;
    const streams = this.sum(start, end, type, "stream");
    const downloads = this.sum(start, end, type, "download");
    return {
      stream_count: streams,
      stream_percentage: change(streams, this.sum(start - length, start - 1, type, "stream")),
      download_count: downloads,
      download_percentage: change(downloads, this.sum(start - length, start - 1, type, "download")),
    };
  }

  /** A "Total" series and one series per top-5 entity of the range, one value per day. */
  chart(start: number, end: number, type: SelectionType, sale: SaleType): TrendChart {
    const top = this.list(start, end, type, sale).slice(0, 5);
    const length = Math.max(0, end - start + 1);
    const total = new Array<number>(length).fill(0);
    const series = top.map(() => new Array<number>(length).fill(0));
    const slot = new Map(top.map((item, i) => [String(item.id), i]));
    for (const day of this.daysWithSales(start, end, type, sale)) {
      for (const item of this.dayItems(day, type, sale)) {
        total[day - start] = (total[day - start] ?? 0) + item.count;
        const i = slot.get(String(item.id));
        const values = i === undefined ? undefined : series[i];
        if (values) values[day - start] = item.count;
      }
    }
    return {
      groups: ["Total", ...top.map((item) => item.name)],
      data: [
        { name: "Total", totals: total },
        ...top.map((item, i) => ({ name: item.name, totals: series[i] ?? [] })),
      ],
    };
  }

  private sum(start: number, end: number, type: SelectionType, sale: SaleType): number {
    let total = 0;
    for (const day of this.daysWithSales(start, end, type, sale)) {
      for (const item of this.dayItems(day, type, sale)) total += item.count;
    }
    return total;
  }

  /** Days of [start, end] that can have sales: the generated range plus overridden days. */
  private daysWithSales(start: number, end: number, type: SelectionType, sale: SaleType): number[] {
    const days: number[] = [];
    for (let day = Math.max(start, this.firstDay); day <= Math.min(end, this.lastDay); day++) {
      days.push(day);
    }
    for (const override of this.overrides.values()) {
      const outside = override.day < this.firstDay || override.day > this.lastDay;
      const inRange = override.day >= start && override.day <= end;
      if (outside && inRange && override.type === type && override.sale === sale) {
        days.push(override.day);
      }
    }
    return days;
  }

  private withLateSales(
    day: number,
    type: SelectionType,
    sale: SaleType,
    items: TrendItem[],
  ): TrendItem[] {
    if (this.revision === 0 || !this.lateDays.has(day)) return items;
    return items.map((item) => ({
      ...item,
      count: lateSalesCount(this.seed, day, type, sale, item.id, item.count, this.revision),
    }));
  }

  private generatedDay(day: number, type: SelectionType, sale: SaleType): TrendItem[] {
    if (day < this.firstDay || day > this.lastDay) return [];
    const universe = this.universes()[type];
    const n = universe.length;
    if (n === 0) return [];
    const rng = rngFor(this.seed, "trend-day", day, type, sale);
    const coverage = COVERAGE[type];
    const share = coverage.min + rng.next() * (coverage.max - coverage.min);
    const sold = Math.max(
      1,
      Math.min(this.cap, Math.round(n * share * (sale === "download" ? 0.4 : 1))),
    );
    const trend =
      (weekday(day) === 0 || weekday(day) === 6 ? 1.15 : 1) * (1 + 0.002 * (day - this.firstDay));
    const daily = sale === "download" ? DAILY_STREAMS / STREAMS_PER_DOWNLOAD : DAILY_STREAMS;
    const scale = daily / sold / MEAN_WEIGHT;
    const weights = this.weights(type);
    const items: TrendItem[] = [];
    for (const index of strideWalk(rng, n, sold)) {
      const entity = universe[index];
      if (!entity) continue;
      const weight = weights[index] ?? MEAN_WEIGHT;
      const count = 1 + Math.round(scale * weight * trend * (0.6 + 0.8 * rng.next()));
      items.push({ id: entity.id, name: entity.name, count });
    }
    return items;
  }

  /** Each entity's lasting popularity: a heavy tail, so a few entities lead every list. */
  private weights(type: SelectionType): Float64Array {
    let weights = this.popularity.get(type);
    if (!weights) {
      const n = this.universes()[type].length;
      weights = Float64Array.from(
        { length: n },
        (_, i) => 0.02 + rngFor(this.seed, "popularity", type, i).next() ** 4,
      );
      this.popularity.set(type, weights);
    }
    return weights;
  }

  private entity(type: SelectionType, id: string): TrendEntity | undefined {
    let index = this.entityIndex.get(type);
    if (!index) {
      index = new Map(this.universes()[type].map((entity) => [String(entity.id), entity]));
      this.entityIndex.set(type, index);
    }
    return index.get(id);
  }
}

function overrideKey(day: number, type: SelectionType, sale: SaleType): string {
  return `${day}|${type}|${sale}`;
}

function compareIds(a: number | string, b: number | string): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : round2((part / whole) * 100);
}

/** Change in % against the previous period; 0 when that period had nothing to compare with. */
function change(current: number, previous: number): number {
  return previous === 0 ? 0 : round2(((current - previous) / previous) * 100);
}
