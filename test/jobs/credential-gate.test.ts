import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CredentialGate, credentialGateOf } from "../../src/jobs/credential-gate.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";
import { until } from "../helpers/until.js";

let upstream: Upstream;
const gates: CredentialGate[] = [];

beforeAll(async () => {
  upstream = await startUpstream("credential_gate", { etl: { max_retries: 0 } });
});

afterAll(async () => {
  for (const gate of gates) gate.close();
  await upstream.close();
});

/** The gate of a worker against the sandbox; a refused credential would be re-checked hourly. */
function gate(): CredentialGate {
  const made = credentialGateOf(upstream.context, {
    credential_recheck_ms: 3_600_000,
    territory_keys: [],
    redis_prefix: upstream.prefix,
  });
  gates.push(made);
  return made;
}

const ready = (g: CredentialGate) =>
  g.health().then(
    () => "ready",
    (error: unknown) => (error as Error).message,
  );

describe("the credential gate", () => {
  it("takes an answer other than a 401 as the credential accepted", async () => {
    upstream.sandbox.setKnobs({ faultRate: 1, faults: ["error500"] });
    try {
      const g = gate();
      expect(await ready(g)).toBe("the credential has not been checked yet");
      await g.verify();
      expect(await ready(g)).toBe("ready");
    } finally {
      upstream.sandbox.setKnobs({ faultRate: 0 });
    }
  });

  it("checks again within seconds, not a recheck period, when the first check got no answer", async () => {
    upstream.sandbox.setKnobs({ down: true });
    const g = gate();
    await g.verify();
    expect(await ready(g)).toMatch(/^the credential could not be checked: /);
    upstream.sandbox.setKnobs({ down: false });
    // The hourly recheck could not make it within the test's time: only the short first waits.
    await until(async () => (await ready(g)) === "ready");
    expect(await ready(g)).toBe("ready");
  });
});
