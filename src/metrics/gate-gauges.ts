import { Counter, Gauge, type Registry } from "prom-client";
import type { OutageStanding } from "../http/upstream-outage.js";
import type { KeptReadingOptions } from "./kept-reading.js";
import { label } from "./metric-label.js";
import type { MetricSources } from "./metric-sources.js";
import { scrapeReader } from "./scrape-reader.js";

/**
 * What keeps the worker from taking work: a refused credential, a dependency away, the upstream
 * down, and the retries the retry budget held back.
 */
export function registerGateGauges(
  registry: Registry,
  sources: () => MetricSources,
  options: KeptReadingOptions,
): void {
  registerCredentialGauge(registry, sources);
  registerDependencyGauges(registry, sources);
  registerOutageGauges(registry, sources, options);
}

function registerCredentialGauge(registry: Registry, sources: () => MetricSources): void {
  const credentialRefused: Gauge = new Gauge({
    name: "etl_upstream_credential_refused",
    help: "1 while the upstream refuses the worker's credential, else 0.",
    registers: [registry],
    collect: () => {
      const source = sources().credentialRefused;
      // Without a source, no series: an unlabelled gauge would otherwise say 0, "accepted".
      if (source) credentialRefused.set(source() ? 1 : 0);
      else credentialRefused.remove();
    },
  });
}

function registerDependencyGauges(registry: Registry, sources: () => MetricSources): void {
  const dependencyUp: Gauge<"dependency"> = new Gauge({
    name: "etl_dependency_up",
    help: "1 while the dependency answered the worker's last probe, 0 while it does not.",
    labelNames: ["dependency"] as const,
    registers: [registry],
    collect: () => {
      dependencyUp.reset();
      for (const { name, up, since } of sources().dependencies?.() ?? []) {
        if (since !== null) dependencyUp.set({ dependency: label(name) }, up ? 1 : 0);
      }
    },
  });
  const dependencySince: Gauge<"dependency"> = new Gauge({
    name: "etl_dependency_last_change_timestamp_seconds",
    help: "When the worker found the dependency as it is now, answering or not (Unix time).",
    labelNames: ["dependency"] as const,
    registers: [registry],
    collect: () => {
      dependencySince.reset();
      for (const { name, since } of sources().dependencies?.() ?? []) {
        if (since !== null)
          dependencySince.set({ dependency: label(name) }, since.getTime() / 1000);
      }
    },
  });
}

/** What is known of an outage, as gauges with no series while the upstream is not down. */
const OUTAGE_GAUGES: readonly {
  readonly name: string;
  readonly help: string;
  readonly value: (outage: OutageStanding) => number;
}[] = [
  {
    name: "etl_upstream_down_since_timestamp_seconds",
    help: "When the upstream was declared down (Unix time).",
    value: (outage) => outage.since.getTime() / 1000,
  },
  {
    name: "etl_upstream_down_probes_failed",
    help: "Probes of the down upstream that failed so far in this outage.",
    value: (outage) => outage.probes,
  },
];

/** The upstream's outage, read from Redis once per scrape, and the retries the budget held back. */
function registerOutageGauges(
  registry: Registry,
  sources: () => MetricSources,
  options: KeptReadingOptions,
): void {
  const standing = scrapeReader("upstreamOutage", () => sources().upstreamOutage, options);
  const down: Gauge = new Gauge({
    name: "etl_upstream_down",
    help: "1 while the upstream is declared down, else 0.",
    registers: [registry],
    collect: async () => {
      const outage = await standing();
      if (outage === undefined) down.remove();
      else down.set(outage ? 1 : 0);
    },
  });
  for (const { name, help, value } of OUTAGE_GAUGES) {
    const gauge: Gauge = new Gauge({
      name,
      help,
      registers: [registry],
      collect: async () => {
        const outage = await standing();
        if (outage) gauge.set(value(outage));
        else gauge.remove();
      },
    });
  }
  const waited: Counter = new Counter({
    name: "etl_retries_waited_total",
    help: "Retries of this process that waited for the retry budget.",
    registers: [registry],
    collect: () => {
      const source = sources().retriesWaited;
      waited.reset();
      if (source) waited.inc(source());
    },
  });
}
