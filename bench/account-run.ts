import { sandboxTracking } from "../sandbox/demo/sandbox-tracking.js";
import { SandboxDataset } from "../sandbox/dataset/dataset.js";
import type { SandboxSize } from "../sandbox/index.js";
import { resolveSize } from "../sandbox/size.js";
import { addDays, utcToday } from "../src/time/calendar.js";
import { type Deployment, withDeployment } from "./deployment.js";
import type { SandboxProcess } from "./processes.js";

const SEED = 1;

/**
 * The large account of the issue (a year of daily trends, 5,000 products, 200 tracked artists)
 * times `scale`: every count of entities grows with it, and so does a day's trends list (the
 * entities with sales). What belongs to one entity or one market does not: an artist's playlists,
 * a chart's rows, the DSPs, the year of days.
 */
export function accountSize(scale: number, today: string): Partial<SandboxSize> {
  return {
    startDate: addDays(today, -365),
    days: 365,
    products: 5_000 * scale,
    artists: 1_000 * scale,
    labels: 60 * scale,
    socialArtists: 200 * scale,
    payouts: 100 * scale,
    incomes: 5_000 * scale,
    trendItemsCap: 1_000 * scale,
  };
}

/**
 * What a user of that account would track: every statistics artist, the searches and chart of
 * the demo, all DSPs and territories. The rate limit is off: the upstream is the bench's own.
 */
function tracking(size: Partial<SandboxSize>, today: string) {
  const data = new SandboxDataset(SEED, resolveSize(size), today);
  return {
    ...sandboxTracking(data),
    social_artist_ids: data.socialArtists().map((artist) => artist.cm_artist),
    requests_per_second: 100_000,
    max_concurrency: 16,
    worker_concurrency: 8,
  };
}

export interface Account {
  readonly sandbox: SandboxProcess;
  readonly deployment: Deployment;
  /** The first and last day with data: the whole account. */
  readonly range: { from: string; to: string };
}

/**
 * A sandbox process holding an account of `scale` × the large one (data up to yesterday, so an
 * incremental sync of today lines up with it), and the pipeline deployed on a scratch database.
 */
export async function withAccount<T>(
  label: string,
  scale: number,
  use: (account: Account) => Promise<T>,
): Promise<T> {
  const today = utcToday();
  const size = accountSize(scale, today);
  return withDeployment(
    { label, sandbox: { size, today, seed: SEED }, etl: tracking(size, today) },
    (deployment, sandbox) =>
      use({
        sandbox,
        deployment,
        range: { from: addDays(today, -365), to: addDays(today, -1) },
      }),
  );
}
