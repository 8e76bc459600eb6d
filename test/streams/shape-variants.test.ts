import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KnobsPatch, SHAPE_VARIANTS } from "../../sandbox/index.js";
import { royaltiesStreams } from "../../src/streams/royalties/index.js";
import {
  describeShapeVariants,
  reportsTrouble,
  SHAPE_VARIANT_PARTS,
  SIZE,
  type Summaries,
  TODAY,
  trackingConfig,
  variantsOfPart,
} from "../helpers/shape-variant-suite.js";
import { type SyncHarness, startSyncHarness, failures } from "../helpers/sync-harness.js";

// The first part of the shape variants (test/helpers/shape-variant-suite.ts), and a next link
// that leaves the upstream's origin.

describeShapeVariants(0);

describe("the shape variants' parts", () => {
  it("run every variant once", () => {
    const parts = Array.from({ length: SHAPE_VARIANT_PARTS }, (_, part) => variantsOfPart(part));
    expect(parts.flat().sort()).toEqual(Object.keys(SHAPE_VARIANTS).sort());
  });
});

/** A server on another local origin that counts the requests it gets and keeps their credentials. */
async function startForeignOrigin() {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ status: true, data: [], links: { next: null } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("a next-page link to another origin", () => {
  let tracking: Awaited<ReturnType<typeof trackingConfig>>;
  let harness: SyncHarness;
  let foreign: Awaited<ReturnType<typeof startForeignOrigin>>;
  let summaries: Summaries;

  beforeAll(async () => {
    tracking = await trackingConfig();
    foreign = await startForeignOrigin();
    const nextLink = SHAPE_VARIANTS["next-link"] as KnobsPatch;
    harness = await startSyncHarness("shapes_foreign_link", {
      today: TODAY,
      sandbox: {
        size: SIZE,
        knobs: { ...nextLink, shapes: { ...nextLink.shapes, foreignNextLink: foreign.origin } },
      },
      etl: tracking,
    });
    summaries = await harness.sync({ streams: royaltiesStreams });
  });

  afterAll(async () => {
    await harness.close();
    await foreign.close();
  });

  it("is never sent a request, so never the credential", () => {
    expect(foreign.seen.map((headers) => headers.authorization ?? "(none)")).toEqual([]);
    expect(failures(summaries)).toEqual([]);
  });

  it("leaves the lists that go on there reported as truncated, not a clean success", () => {
    const data = harness.upstream.sandbox.data;
    // Pages of 10: the lists longer than one page are the ones whose next link goes elsewhere.
    const paged = [
      ["payouts", data.payouts().length],
      ["pending_payouts", data.pendingPayouts().length],
      ["incomes", data.incomes().length],
    ]
      .filter(([, length]) => Number(length) > 10)
      .map(([stream]) => String(stream));
    expect(paged).toEqual(["payouts", "incomes"]);
    const truncated = summaries.flatMap((s) =>
      s.warned
        .filter((w) => w.warnings.some((warning) => warning.kind === "truncated"))
        .map((w) => w.stream),
    );
    expect(truncated).toEqual(paged);
    expect(reportsTrouble(summaries)).toBe(true);
  });
});
