import type { EtlConfig } from "../../config/etl-config-schema.js";
import { addDays } from "../../time/calendar.js";
import type { Row } from "../../warehouse/row.js";
import { type DimensionValues, product } from "../dimensions.js";
import type { Partition } from "../partition.js";
import type { PartitionSet } from "../partition-set.js";
import type { PlanContext } from "../stream.js";

/** The stream that writes artist_stats.artists: every per-artist stream is planned after it. */
export const AFTER_TRACKED_ARTISTS = ["artist_stats_artists"] as const;

/** One tracked artist: the partition of every per-artist snapshot stream. */
export interface ArtistPartition extends Partition {
  readonly artistId: number;
}

/** One partition per tracked artist, keyed by its id. */
async function artistPartitions(context: PlanContext): Promise<Iterable<ArtistPartition>> {
  return product({ artistId: await context.trackedArtistIds() });
}

/** Every tracked artist: the partitions of the per-artist snapshots and lists. */
export const TRACKED_ARTISTS: PartitionSet<ArtistPartition> = {
  plan: artistPartitions,
  after: AFTER_TRACKED_ARTISTS,
  scope: ({ artistId }) => ({ artist_id: artistId }),
};

/**
 * Every tracked artist by each combination of some dimensions (`config` gives their values),
 * each partition's rows scoped to the artist and the partition's value in each: `columns` names
 * the column of each dimension.
 */
export function trackedArtistsBy<D extends Record<string, DimensionValues>>(
  dimensions: (context: PlanContext) => D,
  columns: { readonly [K in keyof D]: string },
): PartitionSet<ArtistPartition & { readonly [K in keyof D]: D[K][number] }> {
  return {
    plan: async (context) => {
      const artistId = await context.trackedArtistIds();
      return product({ artistId, ...dimensions(context) }) as Iterable<
        ArtistPartition & { readonly [K in keyof D]: D[K][number] }
      >;
    },
    after: AFTER_TRACKED_ARTISTS,
    scope: (partition) => {
      const fields = partition as unknown as Row;
      const named = Object.entries<string>(columns).map(([name, column]): [string, unknown] => [
        column,
        fields[name],
      ]);
      return { artist_id: partition.artistId, ...Object.fromEntries(named) };
    },
  };
}

/** One tracked artist on one day of the run's range: radio figures are asked for by date. */
interface ArtistDayPartition extends ArtistPartition {
  readonly day: string;
}

/** The first day `radio_history_days` keeps on `today` (null: it keeps every day). */
export function radioHistoryStart(config: EtlConfig, today: string): string | null {
  const historyDays = config.artist_stats.radio_history_days;
  return historyDays === null ? null : addDays(today, -historyDays);
}

/**
 * Made one at a time: a year of 2,000 artists is 730,000 of them. With `radio_history_days`, only
 * the days of the range within that many days before today.
 */
export async function artistDayPartitions(
  context: PlanContext,
): Promise<Iterable<ArtistDayPartition>> {
  const first = radioHistoryStart(context.config, context.today) ?? "";
  return product({
    day: context.days.filter((day) => day >= first),
    artistId: await context.trackedArtistIds(),
  });
}

/** Every tracked artist on each day of the range; a row's snapshot_date is the day asked for. */
export const ARTIST_DAYS: PartitionSet<ArtistDayPartition> = {
  plan: artistDayPartitions,
  after: AFTER_TRACKED_ARTISTS,
  scope: ({ artistId, day }) => ({ artist_id: artistId, snapshot_date: day }),
  daily: true,
};
