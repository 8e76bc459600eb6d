import type { Redis } from "ioredis";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logging/logger.js";
import { endEpisode, episodeStart } from "./episodes.js";
import type { Notifier } from "./notifier.js";

/**
 * Tells of the credential refused, once for every worker that finds it so (an episode in Redis
 * gives them one key), and forgets the episode once the credential is accepted again. What Redis
 * or the notifier fail at is logged: the gate goes on as it would without notifications.
 */
export function credentialNotifications(
  notifier: Notifier,
  redis: Redis,
  prefix: string,
  logger: Logger,
): { onRefused: (message: string) => void; onAccepted: () => void } {
  const quietly = (work: Promise<unknown>) =>
    void work.catch((error: unknown) =>
      logger.warn({ err: errorMessage(error) }, "could not record the credential's refusal"),
    );
  return {
    onRefused: (message) =>
      quietly(
        episodeStart(redis, prefix, "credential_refused").then((since) =>
          notifier.notify({
            event: "credential_refused",
            key: since,
            at: new Date(since),
            summary: `the upstream refuses the API key (${message}): the workers take no job until it is accepted`,
            command: "npx etl check",
          }),
        ),
      ),
    onAccepted: () => quietly(endEpisode(redis, prefix, "credential_refused")),
  };
}
