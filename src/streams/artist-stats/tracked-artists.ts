import type { EtlConfig } from "../../config/etl-config-schema.js";
import { addDays } from "../../time/calendar.js";
import { product } from "../dimensions.js";
import type { PlanContext } from "../stream.js";
import type { Partition } from "../partition.js";

/** The stream that writes artist_stats.artists: every per-artist stream is planned after it. */
export const AFTER_TRACKED_ARTISTS = ["artist_stats_artists"] as const;

/** One tracked artist: the partition of every per-artist snapshot stream. */
export interface ArtistPartition extends Partition {
  readonly artistId: number;
}

/** One partition per tracked artist, keyed by its id. */
export async function artistPartitions(context: PlanContext): Promise<Iterable<ArtistPartition>> {
  return product({ artistId: await context.trackedArtistIds() });
}

/** The rows of one artist: what replace and snapshot modes scope their deletions to. */
export function artistScope({ artistId }: ArtistPartition) {
  return { artist_id: artistId };
}

/** One tracked artist on one day of the run's range: radio figures are asked for by date. */
export interface ArtistDayPartition extends ArtistPartition {
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

/** An artist's rows of one day (the day asked for is the row's snapshot_date). */
export function artistDayScope({ artistId, day }: ArtistDayPartition) {
  return { artist_id: artistId, snapshot_date: day };
}
