import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { linkedAbort } from "../../src/async/linked-abort.js";

describe("linkedAbort", () => {
  it("aborts with its parent, for the parent's reason", () => {
    const parent = new AbortController();
    const linked = linkedAbort([parent.signal]);
    expect(linked.signal.aborted).toBe(false);
    parent.abort(new Error("shutting down"));
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe("shutting down");
    expect(linked.timedOut).toBe(false);
  });

  it("is aborted at once when the parent already is", () => {
    const linked = linkedAbort([AbortSignal.abort(new Error("gone"))]);
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe("gone");
  });

  it("aborts at its deadline with a TimeoutError, the parent untouched", async () => {
    const parent = new AbortController();
    const linked = linkedAbort([parent.signal], 20);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).name).toBe("TimeoutError");
    expect(linked.timedOut).toBe(true);
    expect(parent.signal.aborted).toBe(false);
  });

  it("can be aborted on its own without aborting the parent", () => {
    const parent = new AbortController();
    const linked = linkedAbort([parent.signal]);
    linked.abort(new Error("refused"));
    expect(linked.signal.aborted).toBe(true);
    expect(parent.signal.aborted).toBe(false);
  });

  it("once closed, leaves no listener on the parent and no deadline pending", async () => {
    const parent = new AbortController();
    const linked = linkedAbort([parent.signal], 20);
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(1);
    linked.close();
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 60));
    parent.abort();
    expect(linked.signal.aborted).toBe(false);
  });

  it("follows each of several parents, and once closed leaves a listener on none", () => {
    const [shutdown, stopping] = [new AbortController(), new AbortController()];
    const linked = linkedAbort([shutdown.signal, undefined, stopping.signal]);
    stopping.abort(new Error("stopping"));
    expect((linked.signal.reason as Error).message).toBe("stopping");
    linked.close();
    for (const parent of [shutdown, stopping]) {
      expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
    }
  });
});
