import { randomUUID } from "node:crypto";
import { type ColumnType, type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";
import { jsonText } from "../json/json-body.js";

/** How long an unfinished request stays resumable: a re-run within it re-sends the same key. */
export const RESUME_PERIOD_MS = 24 * 3600 * 1000;

export type PayoutRequestStatus = "pending" | "accepted" | "refused" | "unknown";

export interface PayoutRequestsTable {
  request_id: string;
  /** numeric(14,2), exact text. */
  amount: ColumnType<string, string, string>;
  requested_at: ColumnType<Date, Date | undefined, never>;
  status: PayoutRequestStatus;
  payout_id: string | null;
  response: ColumnType<unknown, string | null, string | null>;
  message: string | null;
  synced_at: ColumnType<Date, Date | undefined, Date>;
}

type Db = Kysely<Database & { "royalties.payout_requests": PayoutRequestsTable }>;

function withRequests(db: Kysely<Database>): Db {
  return db.withTables<{ "royalties.payout_requests": PayoutRequestsTable }>();
}

export interface PayoutRequest {
  /** The idempotency key. */
  readonly requestId: string;
  readonly amount: string;
  readonly requestedAt: Date;
  readonly status: PayoutRequestStatus;
}

export interface StartedPayoutRequest extends PayoutRequest {
  /** True when an unfinished request of the same amount is re-sent with its key. */
  readonly resumed: boolean;
}

function toRequest(row: {
  request_id: string;
  amount: string;
  requested_at: Date;
  status: PayoutRequestStatus;
}): PayoutRequest {
  return {
    requestId: row.request_id,
    amount: row.amount,
    requestedAt: row.requested_at,
    status: row.status,
  };
}

async function findUnfinished(
  db: Db,
  amount: string,
  periodMs: number,
): Promise<PayoutRequest | undefined> {
  const row = await db
    .selectFrom("royalties.payout_requests")
    .select(["request_id", "amount", "requested_at", "status"])
    .where("status", "in", ["pending", "unknown"])
    .where("amount", "=", amount)
    .where("requested_at", ">", sql<Date>`now() - make_interval(secs => ${periodMs / 1000})`)
    .orderBy("requested_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row && toRequest(row);
}

/** The unfinished request (pending or unknown) of this amount a request would resume, if any. */
export function findUnfinishedPayoutRequest(
  warehouse: Kysely<Database>,
  amount: string,
  periodMs = RESUME_PERIOD_MS,
): Promise<PayoutRequest | undefined> {
  return findUnfinished(withRequests(warehouse), amount, periodMs);
}

/**
 * The request to send for `amount`: the newest unfinished one (pending or unknown) of the same
 * amount made within the resume period, or a new row with a fresh key. Committed before it
 * returns, so the key is on disk before anything is sent. An advisory lock makes two commands
 * started at once agree on one key.
 */
export async function startPayoutRequest(
  warehouse: Kysely<Database>,
  amount: string,
  periodMs = RESUME_PERIOD_MS,
): Promise<StartedPayoutRequest> {
  return withRequests(warehouse)
    .transaction()
    .execute(async (db) => {
      await sql`select pg_advisory_xact_lock(hashtextextended('royalties.payout_requests', 0))`.execute(
        db,
      );
      const unfinished = await findUnfinished(db, amount, periodMs);
      if (unfinished) return { ...unfinished, resumed: true };
      const created = await db
        .insertInto("royalties.payout_requests")
        .values({ request_id: randomUUID(), amount, status: "pending" })
        .returning(["request_id", "amount", "requested_at", "status"])
        .executeTakeFirstOrThrow();
      return { ...toRequest(created), resumed: false };
    });
}

/** Unfinished requests of other amounts within the resume period, which a re-run of theirs resumes. */
export async function otherUnfinishedPayoutRequests(
  warehouse: Kysely<Database>,
  exceptRequestId: string,
  periodMs = RESUME_PERIOD_MS,
): Promise<PayoutRequest[]> {
  const rows = await withRequests(warehouse)
    .selectFrom("royalties.payout_requests")
    .select(["request_id", "amount", "requested_at", "status"])
    .where("status", "in", ["pending", "unknown"])
    .where("request_id", "!=", exceptRequestId)
    .where("requested_at", ">", sql<Date>`now() - make_interval(secs => ${periodMs / 1000})`)
    .orderBy("requested_at")
    .execute();
  return rows.map(toRequest);
}

export interface PayoutRequestOutcome {
  readonly status: Exclude<PayoutRequestStatus, "pending">;
  readonly payoutId: string | null;
  /**
   * The upstream's answer: an acceptance as received, a refusal as the HTTP client hands every
   * answer about a failure, with the key redacted; null when none came.
   */
  readonly response: unknown;
  readonly message: string | null;
}

/** Records what became of a request (its key stays the same). */
export async function recordPayoutOutcome(
  warehouse: Kysely<Database>,
  requestId: string,
  outcome: PayoutRequestOutcome,
): Promise<void> {
  await withRequests(warehouse)
    .updateTable("royalties.payout_requests")
    .set({
      status: outcome.status,
      payout_id: outcome.payoutId,
      response: outcome.response === null ? null : jsonText(outcome.response),
      message: outcome.message,
      synced_at: new Date(),
    })
    .where("request_id", "=", requestId)
    .execute();
}

export interface KnownBalance {
  /** Exact text with two decimals. */
  readonly wallet: string;
  readonly payoutId: string | null;
  readonly at: Date;
}

/**
 * The `wallet` (balance left after the payout) of the newest payout the warehouse knows, from a
 * sync (royalties.payouts) or from this command's own accepted requests. Only a hint: incomes
 * credited since raise the balance, and payouts made elsewhere since the last sync lower it.
 */
export async function lastKnownBalance(warehouse: Kysely<Database>): Promise<KnownBalance | null> {
  const result = await sql<{ wallet: string; payout_id: string | null; at: Date }>`
    select wallet::text as wallet, payout_id, at
    from (
      select wallet, payout_id, created_at as at
      from royalties.payouts
      where wallet is not null and created_at is not null
      union all
      select (response->'payout'->>'wallet')::numeric, payout_id, requested_at
      from royalties.payout_requests
      where status = 'accepted' and response->'payout'->>'wallet' ~ '^\\d{1,12}(\\.\\d+)?$'
    ) known
    order by at desc
    limit 1`.execute(warehouse);
  const row = result.rows[0];
  return row ? { wallet: row.wallet, payoutId: row.payout_id, at: row.at } : null;
}
