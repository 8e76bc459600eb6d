import { describe, expect, it } from "vitest";
import { openEnvelope } from "../../src/api/envelope.js";
import { declaresFailure } from "../../src/http/failure-body.js";
import { upstreamMessage } from "../../src/http/upstream-message.js";
import { JsonDecimal, jsonText, parseJsonBody } from "../../src/json/json-body.js";

const failure = (body: unknown) =>
  declaresFailure(body) ? upstreamMessage(body, JSON.stringify(body)) : null;

describe("a body that declares failure", () => {
  it.each([
    ["the spec's own envelope", { status: false, message: "Insufficient funds", type: 1 }],
    ["status false beside data", { status: false, message: "try later", data: [] }],
    ["success false", { success: false, error: "Service unavailable" }],
    ["an error alone", { error: "Invalid token" }],
    ["errors alone", { errors: [{ message: "rate limited" }] }],
    ["a JSend error", { status: "error", message: "Backend timeout" }],
    ["a JSend fail with a code", { status: "fail", code: 503, message: "Try again" }],
  ])("is a failure: %s", (_, body) => {
    expect(failure(body)).not.toBeNull();
  });

  it("carries the upstream's message", () => {
    expect(failure({ status: false, message: "Insufficient funds" })).toBe("Insufficient funds");
    expect(failure({ success: false, error: "Service unavailable" })).toBe("Service unavailable");
  });

  it.each([
    ["data beside an error", { error: null, data: [{ id: 1 }] }],
    ["an empty errors list beside data", { errors: [], obj: { id: 1 } }],
    ["a record with a status field", { id: "p1", status: "failed", amount: "12.00" }],
    ["a record with an error field", { id: 1, error: "card declined" }],
    ["a success envelope", { status: true, data: [] }],
    ["a bare list", [{ status: false }]],
    ["nothing", null],
  ])("is data: %s", (_, body) => {
    expect(failure(body)).toBeNull();
  });
});

describe("the envelope opener", () => {
  it.each([
    ["obj", { obj: { a: 1 } }, { a: 1 }],
    ["a list under obj", { obj: [{ a: 1 }] }, [{ a: 1 }]],
    ["status and data", { status: true, data: { a: 1 }, message: "ok" }, { a: 1 }],
    ["a key named for the object", { status: true, invoice: { a: 1 } }, { a: 1 }],
    ["a list named for itself", { success: true, payouts: [{ a: 1 }] }, [{ a: 1 }]],
    ["nested envelopes", { data: { data: [{ a: 1 }], total: 1 } }, [{ a: 1 }]],
    ["a record with one object field", { id: 1, photo: { a: 1 } }, { id: 1, photo: { a: 1 } }],
    ["a chart", { groups: ["Total"], data: [] }, { groups: ["Total"], data: [] }],
  ])("opens %s", (_, body, data) => {
    expect(openEnvelope(body).data).toEqual(data);
  });

  it("keeps the envelopes, where paging facts sit", () => {
    const body = { data: { data: [{ a: 1 }], total: 7 }, status: true };
    expect(openEnvelope(body).envelopes).toEqual([body, body.data]);
  });

  it.each([[null], [{}], [[]], [{ obj: [] }], [{ obj: {} }], [{ status: true }]])(
    "finds nothing in %j",
    (body) => {
      expect(openEnvelope(body).data).toBeNull();
    },
  );
});

describe("a JSON body's numbers", () => {
  it("come as sent, never through a double that would change them", () => {
    const body = parseJsonBody(
      '{"a": 12.3400, "b": 1234.5678, "c": "7.10", "d": 12345678901234.5678, "e": 1e3}',
    ) as Record<string, unknown>;
    expect(body.a).toEqual(new JsonDecimal("12.3400"));
    expect(body.b).toBe(1234.5678);
    expect(body.c).toBe("7.10");
    expect(body.d).toEqual(new JsonDecimal("12345678901234.5678"));
    expect(body.e).toEqual(new JsonDecimal("1e3"));
    expect(jsonText(body)).toBe(
      '{"a":12.3400,"b":1234.5678,"c":"7.10","d":12345678901234.5678,"e":1e3}',
    );
  });

  it("ignore digits inside strings, escaped quotes included", () => {
    expect(parseJsonBody('{"s": "a\\" 1.50", "n": 2}')).toEqual({ s: 'a" 1.50', n: 2 });
  });
});
