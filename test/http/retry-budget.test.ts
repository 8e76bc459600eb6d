import { describe, expect, it } from "vitest";
import { RETRY_BUDGET, RetryBudget } from "../../src/http/retry-budget.js";

// What retries may add: half the answers, ten at once, one every two seconds.

describe("the retry budget", () => {
  it("lets 10 retries go at once, then one per two answers, or per two seconds", () => {
    let now = 0;
    const budget = new RetryBudget(RETRY_BUDGET, () => now);
    let granted = 0;
    while (budget.tryTake()) granted++;
    expect(granted).toBe(10);
    budget.answered();
    expect(budget.tryTake()).toBe(false);
    budget.answered();
    expect(budget.tryTake()).toBe(true);
    now += 1_999;
    expect(budget.tryTake()).toBe(false);
    now += 1;
    expect(budget.tryTake()).toBe(true);
  });

  it("bounds retries by the answers whatever the failure rate, and never holds more than its capacity", () => {
    let now = 0;
    const budget = new RetryBudget(RETRY_BUDGET, () => now);
    now += 3_600_000;
    for (let i = 0; i < 1_000; i++) budget.answered();
    let granted = 0;
    for (let i = 0; i < 1_000; i++) {
      if (budget.tryTake()) granted++;
      if (i % 4 === 0) budget.answered();
    }
    // 250 answers refund 125 retries, on top of the 10 a full budget holds.
    expect(granted).toBe(135);
  });

  it("makes a retry wait for its tokens, and counts it", async () => {
    const budget = new RetryBudget({ ...RETRY_BUDGET, capacity: 2 }, () => 0);
    await budget.take();
    const waiting = budget.take();
    budget.answered();
    budget.answered();
    await waiting;
    expect(budget.waited).toBe(1);
  });
});
