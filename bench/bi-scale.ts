/**
 * The sizes of the BI datasets: how many times the large account, over how long, ending on a
 * fixed day so that every run plans the same queries over the same data.
 */
export interface BiScale {
  /** As given to --bi-scale: `large`, `10x3y`, or any `<times>x<years>y` / `<times>x<months>m`. */
  readonly name: string;
  /** Times the large account: products, assets, labels, incomes, payouts and daily streams. */
  readonly times: number;
  readonly firstDay: string;
  readonly lastDay: string;
  readonly days: number;
}

/** The last day of every dataset. */
export const LAST_DAY = "2025-12-31";

const ALIASES: Readonly<Record<string, string>> = { large: "1x1y" };
const SPEC = /^([1-9][0-9]*)x([1-9][0-9]*)([ym])$/;

function utcDay(text: string): Date {
  return new Date(`${text}T00:00:00Z`);
}

export function dayText(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** `day` plus `n` days. */
export function addDays(day: string, n: number): string {
  const date = utcDay(day);
  date.setUTCDate(date.getUTCDate() + n);
  return dayText(date);
}

/** `large`, `10x3y`, `10x1m`: the dataset it names, ending on LAST_DAY. */
export function parseBiScale(name: string): BiScale {
  const match = SPEC.exec(ALIASES[name] ?? name);
  if (!match) {
    throw new Error(
      `--bi-scale ${name}: expected large or <times>x<years>y / <times>x<months>m, e.g. 10x3y`,
    );
  }
  const [, times, length, unit] = match;
  const last = utcDay(LAST_DAY);
  const first = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 1));
  if (unit === "y") first.setUTCFullYear(first.getUTCFullYear() - Number(length));
  else first.setUTCMonth(first.getUTCMonth() - Number(length));
  const days = Math.round((last.getTime() - first.getTime()) / 86_400_000) + 1;
  return { name, times: Number(times), firstDay: dayText(first), lastDay: LAST_DAY, days };
}
