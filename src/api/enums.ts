/** Enumerations the spec lists; parameters outside them are refused before sending. */

export const SELECTION_TYPES = ["dsp", "territory", "label", "product", "asset"] as const;
export type SelectionType = (typeof SELECTION_TYPES)[number];

export const SALE_TYPES = ["stream", "download"] as const;
export type SaleType = (typeof SALE_TYPES)[number];

export const STAT_SOURCES = [
  "music_streaming_1",
  "music_streaming_2",
  "social_1",
  "social_2",
  "social_3",
  "video_channel",
  "video_artist",
  "encyclopedia",
  "concerts",
  "audio_sharing",
  "short_video",
  "live_streaming",
] as const;
export type StatSource = (typeof STAT_SOURCES)[number];

export const AUDIENCE_DOMAINS = ["social_3", "video", "short_video"] as const;
export type AudienceDomain = (typeof AUDIENCE_DOMAINS)[number];

export const AUDIENCE_TYPES = ["followers", "likes", "commenters"] as const;
export type AudienceType = (typeof AUDIENCE_TYPES)[number];

export const STATS_TYPES = [
  "country",
  "city",
  "interest",
  "brand",
  "language",
  "stat",
  "demographic",
] as const;
export type StatsType = (typeof STATS_TYPES)[number];

export const EDITORIAL_PLATFORMS = [
  "music_streaming_1",
  "music_streaming_3",
  "music_streaming_2",
  "music_streaming_4",
  "video",
] as const;
export type EditorialPlatform = (typeof EDITORIAL_PLATFORMS)[number];

export const PLAYLIST_STATUSES = ["current", "past"] as const;
export type PlaylistStatus = (typeof PLAYLIST_STATUSES)[number];

export const CURATOR_PLATFORMS = [
  "music_streaming_1",
  "music_streaming_3",
  "music_streaming_2",
] as const;
export type CuratorPlatform = (typeof CURATOR_PLATFORMS)[number];
