import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table royalties.payout_requests (
      request_id uuid primary key,
      amount numeric(14,2) not null check (amount >= 100),
      requested_at timestamptz not null default now(),
      status text not null default 'pending'
        check (status in ('pending', 'accepted', 'refused', 'unknown')),
      payout_id text,
      response jsonb,
      message text,
      synced_at timestamptz not null default now()
    )`.execute(db);
  // What `etl payouts request` looks up before making a new key: an unfinished request of the
  // same amount.
  await sql`
    create index payout_requests_unfinished on royalties.payout_requests (amount, requested_at)
    where status in ('pending', 'unknown')`.execute(db);
  await commentOn(
    db,
    "royalties.payout_requests",
    "Payouts requested with `etl payouts request`: one row per request, written and committed before the request is sent, then updated with the upstream's answer. The request_id is the idempotency key sent with every attempt, so re-running an unfinished request (pending or unknown) re-sends the same key and can never create a second payout. Not filled by syncs: the payout itself appears in royalties.payouts (idempotency_key = request_id) after the next sync.",
    {
      request_id:
        "The request's idempotency key (a UUID), sent as the Idempotency-Key header and the body's idempotency_key on every attempt. Joins royalties.payouts.idempotency_key.",
      amount: "The amount requested (exact, two decimals; at least 100).",
      requested_at:
        "When the request was first made (the row was written before anything was sent).",
      status:
        "pending: written, no answer recorded yet (sending, or the command stopped before the answer was recorded); accepted: the upstream made (or had already made) the payout; refused: the upstream refused it (see message and response.type); unknown: no answer after every retry, so the payout may or may not exist. Re-running the command with the same amount within 24 hours resumes a pending or unknown request with its key.",
      payout_id:
        "The upstream's payout id once accepted (royalties.payouts.payout_id after the next sync); null otherwise.",
      response:
        "The upstream's last answer exactly as received (a payout with its wallet, or {status: false, message, type}); null while no answer came.",
      message:
        "The upstream's message (e.g. Payout requested, Insufficient funds), or for an unknown outcome the last error; null while pending.",
      synced_at: "When this row's content last changed (written, resumed or given its outcome).",
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table royalties.payout_requests`.execute(db);
}
