import type { UpstreamOutage } from "../http/upstream-outage.js";
import type { Notifier } from "./notifier.js";

/** Tells of the upstream's outage: its start by the process that declared it, its end by the prober. */
export function notifyOutages(outage: UpstreamOutage, notifier: Notifier): void {
  outage.on("declared", (since, problem) =>
    notifier.notify({
      event: "upstream_down",
      key: since.toISOString(),
      at: since,
      summary: `the upstream is down since ${since.toISOString()} (${problem}): the workers take no job and probe it until it answers`,
      command: "npx etl status",
      details: { since: since.toISOString(), problem },
    }),
  );
  outage.on("ended", (since, failedProbes) => {
    const at = new Date();
    const seconds = Math.round((at.getTime() - since.getTime()) / 1000);
    notifier.notify({
      event: "upstream_up",
      key: since.toISOString(),
      at,
      summary: `the upstream answers again after ${seconds} s down (${failedProbes} probes failed): work resumes`,
      command: "npx etl status",
      details: { since: since.toISOString(), downSeconds: seconds, failedProbes },
    });
  });
}
