import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_MODULES, ENDPOINT_ROUTES } from "../../sandbox/endpoint-modules.js";
import { ValidationError } from "../../sandbox/http/errors.js";
import { parseParams } from "../../sandbox/http/params.js";
import { type Sandbox, SHAPE_VARIANTS, startSandbox } from "../../sandbox/index.js";
import { operationNameOf } from "../../src/api/endpoint.js";
import { API_PREFIX } from "../../src/api/operation.js";
import { call } from "./call.js";

// Every file of sandbox/endpoints/ is served by listing the folder: a module added is served,
// validated, counted and given its variant with no other file changed.

const modules = [...ENDPOINT_MODULES];

/** The parameters a request without any lacks, as the module's route reports them. */
function missingParams(params: Parameters<typeof parseParams>[1]): string[] {
  try {
    parseParams({}, params);
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return Object.keys(error.errors);
  }
}

describe("sandbox endpoint modules", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ today: "2026-02-15" });
  });
  afterAll(() => sandbox.close());

  it("finds the modules in their folder", () => {
    expect(modules.map(([name]) => name)).toContain("urls");
    const urls = ENDPOINT_ROUTES.find((route) => route.path === "/api/v1/artist-stats/urls");
    expect(urls?.operation).toBe("artistStats.urls");
    for (const [name, endpoint] of modules) {
      expect(endpoint.path, name).toMatch(new RegExp(`^${API_PREFIX}/`));
    }
  });

  it.each(modules)("serves %s at its path, counted under its operation's name", async (_, e) => {
    sandbox.resetStats();
    const answer = await call(sandbox, e.path);
    const missing = missingParams(e.params);
    if (missing.length > 0) {
      expect(answer.status).toBe(422);
      expect(Object.keys((answer.json as { errors: object }).errors).sort()).toEqual(
        missing.sort(),
      );
    } else {
      expect(answer.status).toBe(200);
    }
    const name = operationNameOf(e.path.slice(API_PREFIX.length));
    expect(sandbox.stats().byOperation).toEqual({ [name]: 1 });
  });

  it("selects each other shape by its variant, and every one in the variants of them all", () => {
    const others = modules.filter(([, endpoint]) => endpoint.otherShape);
    for (const [name, endpoint] of others) {
      expect(SHAPE_VARIANTS[endpoint.otherShape?.variant ?? ""]).toEqual({
        shapes: { otherShapes: [name] },
      });
    }
    for (const all of ["all-alternative", "all-habits"]) {
      expect(SHAPE_VARIANTS[all]?.shapes?.otherShapes, all).toEqual(others.map(([name]) => name));
    }
  });
});
