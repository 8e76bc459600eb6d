import { hostname } from "node:os";

/** What a notification target may ask for: every event the pipeline tells of. */
export const NOTIFICATION_EVENTS = [
  "run_ended",
  "partitions_failed",
  "upstream_down",
  "upstream_up",
  "credential_refused",
  "stream_stale",
  "schema_changed",
  "last_worker_gone",
  "test",
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/**
 * One thing that happened, told once whatever the number of workers (`key`: the same event found
 * by two processes has the same key, and only the first sends it).
 */
export interface Notification {
  readonly event: NotificationEvent;
  /** Names the occurrence: an outage by its start, a run by its id, a stale stream by its last success. */
  readonly key: string;
  readonly at: Date;
  /** One sentence: what happened. */
  readonly summary: string;
  readonly run?: string;
  readonly streams?: readonly string[];
  /** Where to look: the command that shows more. */
  readonly command: string;
  /** Figures of the event (counts, times), for a receiver that reads them. */
  readonly details?: Readonly<Record<string, string | number | boolean | null>>;
}

/** The plain JSON form: every field, under stable names. */
export function jsonPayload(notification: Notification): Record<string, unknown> {
  return {
    source: "music-etl",
    host: hostname(),
    event: notification.event,
    id: notificationId(notification),
    at: notification.at.toISOString(),
    summary: notification.summary,
    run: notification.run ?? null,
    streams: notification.streams ?? [],
    command: notification.command,
    details: notification.details ?? {},
  };
}

/** The form a Slack incoming webhook (and the chat tools that copy it) shows as a message. */
export function slackPayload(notification: Notification): Record<string, unknown> {
  const streams = notification.streams?.length ? ` (${notification.streams.join(", ")})` : "";
  return {
    text: `music-etl: ${notification.summary}${streams}\n\`${notification.command}\``,
  };
}

/** The notification's id: its event and key, the same in every process that finds it. */
export function notificationId(notification: Pick<Notification, "event" | "key">): string {
  return `${notification.event}:${notification.key}`;
}
