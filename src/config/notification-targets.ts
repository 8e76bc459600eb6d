import { z } from "zod";
import { NOTIFICATION_EVENTS } from "../notify/notification.js";

/**
 * `notifications`: webhooks told of what an operator must hear of, each with the events it wants
 * (all when `events` is left out), as JSON or in Slack's form, signed with an HMAC of the body when
 * `secret_env` names an environment variable holding the secret (never the secret itself: the
 * file is not secret).
 */
export const notificationTargetsSchema = z
  .array(
    z
      .object({
        url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
        events: z.array(z.enum(NOTIFICATION_EVENTS)).min(1).optional(),
        format: z.enum(["json", "slack"]).default("json"),
        secret_env: z
          .string()
          .regex(/^[A-Z_][A-Z0-9_]*$/, "must name an environment variable")
          .optional(),
      })
      .strict(),
  )
  .default([]);

export type NotificationTargetSetting = z.output<typeof notificationTargetsSchema>[number];
