import { randomUUID } from "node:crypto";
import { instantOn, monthOf, monthStart } from "../days.js";
import { hash32, rngFor } from "../prng.js";
import { uuidFrom } from "./identifiers.js";
import {
  centsToMinor,
  feesOf,
  formatCents,
  type MoneyDecimals,
  moneyValue,
  parseCents,
} from "./money.js";
import type { Dsp, Income, Invoice, Payout, PayoutStatus } from "./records.js";
import { restatedCents, restatedIncomeIndices } from "./revision.js";
import { TERRITORIES } from "./territories.js";

const PAYOUT_STATUSES: readonly PayoutStatus[] = [
  "pending",
  "processing",
  "paid",
  "failed",
  "cancelled",
];
export const MINIMUM_AMOUNT_CENTS = 10_000;
const INITIAL_BALANCE_CENTS = 123_456;
const INITIAL_THRESHOLD_CENTS = 10_000;
const CURRENCY = "EUR";
const INCOME_SOURCES = ["streaming", "download", "video", "ugc", "neighbouring rights"];
const INCOME_MONTHS = 12;
/** Seconds after midnight of today when a revision's payout was paid. */
const REVISION_PAID_AT_SECONDS = 6 * 3600;
/** The oldest generated payout: the one whose metadata emptyCases serves empty. */
const FIRST_PAYOUT_ID = "4001";
const FAILURE_NOTE = 'Bank rejected the transfer: "invalid IBAN"; contact O\'Neil at support';

/** 1 = payouts on request, 2 = monthly payouts. */
export type WithdrawalType = 1 | 2;

export type PayoutRequestOutcome =
  | { kind: "created" | "replayed"; payout: Payout }
  | { kind: "refused"; type: 0 | 1; message: string };

/** A payout's money in cents, served at the current decimals by `served`. */
interface PayoutMoney {
  amountCents: number;
  walletCents: number;
  /** Generated payouts gain two hashed digits at 4 decimals; requested amounts keep theirs. */
  generated: boolean;
}

export interface NewPayout {
  amountCents: number;
  status?: PayoutStatus;
  /** Default: a random UUID. */
  idempotencyKey?: string;
  /** ISO instant; default now. */
  createdAt?: string;
}

/** The account's money: payouts (mutable, as the API mutates them), incomes and the invoice. */
export class Royalties {
  private readonly payoutList: Payout[];
  private readonly byIdempotencyKey = new Map<string, Payout>();
  private balanceCents = INITIAL_BALANCE_CENTS;
  private thresholdCents = INITIAL_THRESHOLD_CENTS;
  private withdrawal: WithdrawalType = 1;
  private readonly userId: string;
  private readonly generatedCount: number;
  private incomeList: Income[] | undefined;
  private revision = 0;
  /** The oldest generated pending payout: the one a revision serves as paid. */
  private readonly revisedPayoutId: string | null;
  /** Payouts moved by setPayoutStatus: an explicit status wins over the revision. */
  private readonly moved = new Set<string>();
  /** Money of each payout by id: the stored Payout's amounts are replaced when served. */
  private readonly money = new Map<string, PayoutMoney>();
  private decimals: MoneyDecimals = 2;
  private emptyCases = false;

  constructor(
    private readonly seed: number,
    private readonly incomeCount: number,
    payoutCount: number,
    private readonly today: number,
    private readonly dsps: () => readonly Dsp[],
  ) {
    this.userId = String(rngFor(seed, "user").int(10_000, 99_999));
    this.payoutList = Array.from({ length: payoutCount }, (_, i) =>
      this.historicPayout(i, payoutCount),
    );
    for (const payout of this.payoutList)
      this.byIdempotencyKey.set(payout.metadata.idempotency_key, payout);
    this.revisedPayoutId = payoutCount > 0 ? String(4001 + Math.max(0, payoutCount - 3)) : null;
    this.generatedCount = payoutCount;
  }

  /** From revision 1 on: one pending payout is paid, some incomes are restated. */
  setRevision(revision: number): void {
    this.revision = revision;
  }

  /** Decimals of every amount served (shapes.moneyDecimals): 4 adds two digits to each. */
  setMoneyDecimals(decimals: MoneyDecimals): void {
    this.decimals = decimals;
  }

  /** shapes.emptyCases: the oldest payout's metadata empty, only one generated payout pending. */
  setEmptyCases(on: boolean): void {
    this.emptyCases = on;
  }

  payouts(): Payout[] {
    return this.payoutList.map((payout) => this.served(payout));
  }

  /** Id of the payout the revision serves as paid; null at revision 0 or when it is not pending. */
  paidByRevision(): string | null {
    const payout = this.payoutList.find((candidate) => candidate.id === this.revisedPayoutId);
    return payout && this.isPaidByRevision(payout) ? payout.id : null;
  }

  /** Ids of the incomes the revision restates; none at revision 0. */
  restatedIncomeIds(): number[] {
    if (this.revision === 0) return [];
    return restatedIncomeIndices(this.seed, this.incomeCount).map((i) => 1 + i);
  }

  balance(): string {
    return formatCents(this.balanceCents);
  }

  threshold(): string {
    return formatCents(this.thresholdCents);
  }

  withdrawalType(): WithdrawalType {
    return this.withdrawal;
  }

  /**
   * POST /payouts. A key seen before answers the payout it created, whatever the amount, so a
   * retried request never pays twice; that check comes before the balance, which has dropped.
   */
  requestPayout(amountCents: number, idempotencyKey: string | undefined): PayoutRequestOutcome {
    const known =
      idempotencyKey === undefined ? undefined : this.byIdempotencyKey.get(idempotencyKey);
    if (known) return { kind: "replayed", payout: this.served(known) };
    if (this.withdrawal === 2) {
      return {
        kind: "refused",
        type: 0,
        message: "Withdrawal type cannot be changed to request at this time",
      };
    }
    if (amountCents > this.balanceCents)
      return { kind: "refused", type: 1, message: "Insufficient funds" };
    this.balanceCents -= amountCents;
    const payout = this.addPayout({ amountCents, idempotencyKey });
    return { kind: "created", payout };
  }

  /** Adds a payout as if created elsewhere; the balance is left as it is. */
  addPayout(input: NewPayout): Payout {
    const id = String(Math.max(4000, ...this.payoutList.map((payout) => Number(payout.id))) + 1);
    const createdAt = input.createdAt ?? this.now();
    const payout = newPayout({
      id,
      userId: this.userId,
      createdAt,
      idempotencyKey: input.idempotencyKey ?? randomUUID(),
    });
    const money = { amountCents: input.amountCents, walletCents: this.balanceCents };
    this.money.set(id, { ...money, generated: false });
    applyStatus(payout, input.status ?? "pending", createdAt);
    this.payoutList.push(payout);
    this.byIdempotencyKey.set(payout.metadata.idempotency_key, payout);
    return this.served(payout);
  }

  /** Moves a payout to a status, filling or clearing method, reference, processed_at and notes. */
  setPayoutStatus(id: string, status: PayoutStatus): Payout {
    const payout = this.payoutList.find((candidate) => candidate.id === id);
    if (!payout) throw new Error(`no payout with id ${id}`);
    if (!PAYOUT_STATUSES.includes(status)) throw new Error(`unknown payout status ${status}`);
    // A payout the revision shows as paid is paid as far as any client knows: start from that.
    if (this.isPaidByRevision(payout)) {
      applyStatus(payout, "paid", instantOn(this.today, REVISION_PAID_AT_SECONDS));
    }
    this.moved.add(id);
    applyStatus(payout, status, this.now());
    return this.served(payout);
  }

  setThreshold(amountCents: number): string {
    this.thresholdCents = amountCents;
    return this.threshold();
  }

  setWithdrawalType(type: WithdrawalType): void {
    this.withdrawal = type;
  }

  incomes(): Income[] {
    return this.incomeUnits().map(({ income, units }) => ({
      ...income,
      amount: moneyValue(units, this.decimals, [this.seed, "income", income.id]),
    }));
  }

  /** The invoice of the last closed month: its incomes summed per DSP. */
  invoice(): Invoice {
    const periodStart = monthStart(this.today, -1);
    const period = monthOf(periodStart);
    const perDsp = new Map<string, { quantity: number; units: number }>();
    for (const { income, units } of this.incomeUnits()) {
      if (income.period !== period) continue;
      const line = perDsp.get(income.dsp) ?? { quantity: 0, units: 0 };
      line.quantity++;
      line.units += units;
      perDsp.set(income.dsp, line);
    }
    const amount = (units: number, ...key: string[]) =>
      moneyValue(units, this.decimals, [this.seed, "invoice", ...key]);
    const lines = [...perDsp.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([dsp, line]) => ({
        dsp,
        description: `Royalties ${period} - ${dsp}`,
        quantity: line.quantity,
        amount: amount(line.units, dsp),
      }));
    const total = [...perDsp.values()].reduce((sum, line) => sum + line.units, 0);
    return {
      invoice_number: `INV-${period.replace("-", "")}-${String(hash32(this.seed, "invoice") % 10_000).padStart(4, "0")}`,
      period,
      issued_at: instantOn(monthStart(this.today, 0) + 4, 9 * 3600),
      currency: CURRENCY,
      total: amount(total, "total"),
      lines,
    };
  }

  /** Each income with its amount in minor units at the current decimals and revision. */
  private incomeUnits(): { income: Income; units: number }[] {
    this.incomeList ??= Array.from({ length: this.incomeCount }, (_, i) => this.income(i));
    const restated = new Set(
      this.revision > 0 ? restatedIncomeIndices(this.seed, this.incomeCount) : [],
    );
    return this.incomeList.map((income, i) => {
      const cents = parseCents(income.amount) ?? 0;
      const units = centsToMinor(cents, this.decimals, this.seed, "income", i);
      return {
        income: structuredClone(income),
        units: restated.has(i) ? restatedCents(this.seed, i, units, this.revision) : units,
      };
    });
  }

  /**
   * A copy of the payout as served: the revision's paid payout is paid, its money at the current
   * decimals, and under emptyCases the oldest has empty metadata and one generated one is pending.
   */
  private served(payout: Payout): Payout {
    const copy = structuredClone(payout);
    if (this.isPaidByRevision(payout)) {
      applyStatus(copy, "paid", instantOn(this.today, REVISION_PAID_AT_SECONDS));
    } else if (this.isProcessingByEmptyCases(payout)) {
      applyStatus(copy, "processing", payout.created_at);
    }
    Object.assign(copy, this.servedMoney(payout.id));
    if (this.emptyCases && payout.id === FIRST_PAYOUT_ID) copy.metadata = {};
    return copy;
  }

  /** amount, fees, net_amount and wallet at the current decimals; fees follow the amount. */
  private servedMoney(id: string): Pick<Payout, "amount" | "fees" | "net_amount" | "wallet"> {
    const money = this.money.get(id);
    if (!money) throw new Error(`no money for payout ${id}`);
    const units = (cents: number, field: string) =>
      money.generated
        ? centsToMinor(cents, this.decimals, this.seed, "payout", id, field)
        : cents * 10 ** (this.decimals - 2);
    const amount = units(money.amountCents, "amount");
    const fees = feesOf(amount, this.decimals);
    const value = (minor: number, field: string, plain?: "number") =>
      moneyValue(minor, this.decimals, [this.seed, "payout", id, field], plain);
    return {
      amount: value(amount, "amount"),
      fees: value(fees, "fees"),
      net_amount: value(amount - fees, "net_amount"),
      wallet: value(units(money.walletCents, "wallet"), "wallet", "number"),
    };
  }

  /** Under emptyCases only the revision's payout stays pending, so revision 1 leaves none. */
  private isProcessingByEmptyCases(payout: Payout): boolean {
    return (
      this.emptyCases &&
      payout.status === "pending" &&
      Number(payout.id) <= 4000 + this.generatedCount &&
      payout.id !== this.revisedPayoutId &&
      !this.moved.has(payout.id)
    );
  }

  private isPaidByRevision(payout: Payout): boolean {
    return (
      this.revision > 0 &&
      payout.id === this.revisedPayoutId &&
      payout.status === "pending" &&
      !this.moved.has(payout.id)
    );
  }

  /** The sandbox's today at the current time of day: "now" for payouts made or handled. */
  private now(): string {
    return instantOn(this.today, Math.floor((Date.now() % 86_400_000) / 1000));
  }

  /** Older payouts are settled; the newest ones are still pending or processing. */
  private historicPayout(i: number, count: number): Payout {
    const rng = rngFor(this.seed, "payout", i);
    const amountCents = rng.int(100, 2_000) * 100 + rng.int(0, 99);
    const createdDay = this.today - (count - i) * 9 - rng.int(0, 4);
    const fromEnd = count - 1 - i;
    const status: PayoutStatus =
      fromEnd < 3
        ? "pending"
        : fromEnd === 3
          ? "processing"
          : rng.pick(["paid", "paid", "paid", "paid", "paid", "paid", "failed", "cancelled"]);
    const walletCents = rng.int(100_000, 500_000);
    const payout = newPayout({
      id: String(4001 + i),
      userId: this.userId,
      createdAt: instantOn(createdDay, rng.int(0, 86_399)),
      idempotencyKey: uuidFrom(rng),
    });
    this.money.set(payout.id, { amountCents, walletCents, generated: true });
    applyStatus(payout, status, instantOn(createdDay + 2, rng.int(0, 86_399)));
    return payout;
  }

  private income(i: number): Income {
    const rng = rngFor(this.seed, "income", i);
    const periodStart = monthStart(
      this.today,
      -1 - Math.floor((i * INCOME_MONTHS) / Math.max(1, this.incomeCount)),
    );
    const dsps = this.dsps();
    return {
      id: 1 + i,
      period: monthOf(periodStart),
      source: rng.pick(INCOME_SOURCES),
      dsp: dsps.length > 0 ? rng.pick(dsps).name : "Unknown",
      territory: rng.pick(TERRITORIES).code,
      amount: formatCents(rng.int(50, 50_000)),
      currency: CURRENCY,
      created_at: instantOn(monthStart(periodStart, 1) + rng.int(1, 9), rng.int(0, 86_399)),
    };
  }
}

/** A pending payout; its money is filled in when served (Royalties.servedMoney). */
function newPayout(fields: {
  id: string;
  userId: string;
  createdAt: string;
  idempotencyKey: string;
}): Payout {
  return {
    id: fields.id,
    user_id: fields.userId,
    amount: "",
    currency: CURRENCY,
    fees: "",
    net_amount: "",
    wallet: 0,
    status: "pending",
    method: null,
    reference: null,
    created_at: fields.createdAt,
    processed_at: null,
    notes: null,
    metadata: { idempotency_key: fields.idempotencyKey },
  };
}

/** Fields that follow a status: null while pending, filled as the payout is handled. */
function applyStatus(payout: Payout, status: PayoutStatus, at: string): void {
  const handled = status !== "pending";
  payout.status = status;
  payout.method = handled && status !== "cancelled" ? (payout.method ?? "bank_transfer") : null;
  payout.reference =
    status === "paid"
      ? (payout.reference ?? `TRX-${payout.id}-${payout.metadata.idempotency_key.slice(0, 8)}`)
      : null;
  payout.processed_at =
    status === "paid" || status === "failed" ? (payout.processed_at ?? at) : null;
  payout.notes =
    status === "failed" ? FAILURE_NOTE : status === "cancelled" ? "Cancelled by user" : null;
}
