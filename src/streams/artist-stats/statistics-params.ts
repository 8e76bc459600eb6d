import { z } from "zod";
import { calendarDate, limit, offset, positiveInt } from "../../api/params.js";

/** One artist, by the social artist id (`cm_artist`) the statistics operations take. */
export const byArtist = z.object({ artist_id: positiveInt });

/** One artist on one day (today when `date` is left out). */
export const byArtistOnDate = z.object({ artist_id: positiveInt, date: calendarDate.optional() });

/**
 * The days a statistics request is about, either end left open: a series' window (/stat), or the
 * days a list is filtered to (the editorial playlists added then, a snapshot as of `until`).
 */
export const SINCE_UNTIL = { since: calendarDate.optional(), until: calendarDate.optional() };

/** The statistics lists' paging: a first record and a count. */
export const OFFSET_LIMIT = { offset: offset.optional(), limit: limit.optional() };

/** The refinement of a window whose ends are given in the wrong order. */
export const SINCE_ORDER = { message: "must not be after until", path: ["since"] };
