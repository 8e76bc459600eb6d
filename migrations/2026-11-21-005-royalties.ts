import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

const SYNCED_AT = "When this row's content last changed (set on insert and on a real update only).";
const RAW = "The upstream's record exactly as received, including fields not typed here.";
const MONEY = "exact, two decimals";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create schema if not exists royalties`.execute(db);
  await sql`comment on schema royalties is 'The account''s money: payouts and their status history, incomes and the monthly invoice.'`.execute(
    db,
  );

  await sql`
    create table royalties.payouts (
      payout_id text primary key,
      user_id text,
      amount numeric(14,2),
      currency text,
      fees numeric(14,2),
      net_amount numeric(14,2),
      wallet numeric(14,2),
      status text,
      method text,
      reference text,
      created_at timestamptz,
      processed_at timestamptz,
      notes text,
      idempotency_key text,
      raw jsonb not null,
      first_seen_at timestamptz not null default now(),
      last_seen_on date not null,
      last_seen_at timestamptz not null default now(),
      synced_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index payouts_status on royalties.payouts (status)`.execute(db);
  await sql`create index payouts_created on royalties.payouts (created_at)`.execute(db);
  await commentOn(
    db,
    "royalties.payouts",
    "Payouts (withdrawals of royalties to the account holder) from the payouts list and the pending payouts list, refreshed on every sync: one row per payout, in its current state. Rows are never deleted. Status changes are kept in royalties.payout_status_history.",
    {
      payout_id: "The upstream's payout id (text).",
      user_id: "The upstream's id of the account holder (text).",
      amount: `Amount requested, in currency (${MONEY}).`,
      currency: "Currency code, e.g. EUR.",
      fees: `Fees charged on the payout (${MONEY}).`,
      net_amount: `Amount paid out after fees (${MONEY}).`,
      wallet:
        "The wallet figure returned with the payout (the balance left after it was requested).",
      status:
        "Status as the upstream sends it: pending, processing, paid, failed or cancelled (other values are stored as they come).",
      method: "How the payout is paid, e.g. bank_transfer; null while pending.",
      reference: "The payment's reference once paid; null before.",
      created_at: "When the payout was requested.",
      processed_at: "When the payout was paid or failed; null before.",
      notes: "The upstream's note, e.g. why a payout failed or was cancelled (free text).",
      idempotency_key:
        "The key (a UUID) the payout was requested with; a retried request with the same key never created a second payout.",
      raw: RAW,
      first_seen_at: "When a sync first stored the payout. Never changes.",
      last_seen_on:
        "The UTC run date of the latest sync that listed the payout. Compared like any other column, so it is written at most once per day: a second sync on the same day writes nothing.",
      last_seen_at:
        "When a sync last listed the payout, to the day: set by a trigger to the time of the first sync of the day in last_seen_on (the insert time on the first day). Later syncs that day leave it as it is.",
      synced_at: `${SYNCED_AT} A daily refresh of last_seen_on / last_seen_at alone does not count as a change.`,
    },
  );

  await sql`
    create table royalties.payout_status_history (
      payout_id text not null references royalties.payouts (payout_id) on delete cascade,
      observed_at timestamptz not null,
      status text,
      synced_at timestamptz not null default now(),
      primary key (payout_id, observed_at)
    )`.execute(db);
  await commentOn(
    db,
    "royalties.payout_status_history",
    "Every status a payout was seen in: one row when a sync first stores the payout, and one each time a sync finds its status changed. Written by a trigger on royalties.payouts in the same transaction as the change, so it is exact: a sync without change adds nothing. A change made and undone between two syncs is not seen.",
    {
      payout_id: "The payout (royalties.payouts.payout_id).",
      observed_at:
        "When the sync that stored this status committed (the status held from then until the next row).",
      status: "The status the payout had from observed_at.",
      synced_at: "When this row was written (rows are never updated).",
    },
  );

  // The writer updates a row only when a column changed, and always sets every column: these
  // triggers turn a real update into history, and keep the bookkeeping columns honest.
  await sql`
    create function royalties.payouts_before_update() returns trigger language plpgsql as $$
    begin
      new.first_seen_at := old.first_seen_at;
      new.last_seen_at := case
        when new.last_seen_on is distinct from old.last_seen_on then now()
        else old.last_seen_at
      end;
      if to_jsonb(new) - array['last_seen_on', 'last_seen_at', 'synced_at']
         = to_jsonb(old) - array['last_seen_on', 'last_seen_at', 'synced_at'] then
        new.synced_at := old.synced_at;
      end if;
      return new;
    end
    $$`.execute(db);
  await sql`
    create trigger payouts_before_update before update on royalties.payouts
    for each row execute function royalties.payouts_before_update()`.execute(db);

  await sql`
    create function royalties.payouts_record_status() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' or new.status is distinct from old.status then
        insert into royalties.payout_status_history (payout_id, observed_at, status)
        values (new.payout_id, now(), new.status)
        on conflict (payout_id, observed_at) do update set status = excluded.status;
      end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger payouts_record_status after insert or update of status on royalties.payouts
    for each row execute function royalties.payouts_record_status()`.execute(db);

  await sql`
    create table royalties.incomes (
      income_key text primary key,
      period text,
      period_start date,
      source text,
      dsp_name text,
      territory_code text,
      amount numeric(14,2),
      currency text,
      created_at timestamptz,
      raw jsonb not null,
      synced_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index incomes_period on royalties.incomes (period_start)`.execute(db);
  await commentOn(
    db,
    "royalties.incomes",
    "Royalty incomes credited to the account (the upstream lists about the last 12 closed months), refreshed on every sync: one row per income. Rows are never deleted.",
    {
      income_key:
        "The upstream's income id as text; for a record without an id, sha256 (hex) of the record's JSON with keys sorted, so the same record always gets the same key.",
      period: "The month the income is for, YYYY-MM, as sent.",
      period_start: "First day of that month (null when period is not YYYY-MM).",
      source: "Kind of income, e.g. streaming, download, video, ugc, neighbouring rights.",
      dsp_name: "Name of the DSP the income comes from (catalogue.dsps.name).",
      territory_code: "Two-letter code of the territory (catalogue.territories.code).",
      amount: `Amount credited, in currency (${MONEY}).`,
      currency: "Currency code, e.g. EUR.",
      created_at: "When the upstream recorded the income.",
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );

  await sql`
    create table royalties.invoices (
      invoice_key text not null,
      snapshot_date date not null,
      invoice_number text,
      period text,
      issued_at timestamptz,
      currency text,
      total numeric(14,2),
      lines jsonb,
      raw jsonb not null,
      synced_at timestamptz not null default now(),
      primary key (invoice_key, snapshot_date)
    )`.execute(db);
  await commentOn(
    db,
    "royalties.invoices",
    "The invoice the upstream shows (the last closed month's), one copy per sync day: one row per (invoice, snapshot_date), so history is kept even though the upstream only shows the current invoice.",
    {
      invoice_key:
        "The invoice number; for an invoice without one, sha256 (hex) of its JSON with keys sorted.",
      snapshot_date: "The UTC date of the sync that took this copy.",
      invoice_number: "The invoice number as sent, e.g. INV-202512-0042.",
      period: "The month invoiced, YYYY-MM.",
      issued_at: "When the invoice was issued.",
      currency: "Currency code of the amounts.",
      total: `Invoice total (${MONEY}): the sum of its lines.`,
      lines:
        "The invoice lines as sent: [{dsp, description, quantity, amount}], one per DSP. Use jsonb_array_elements(lines) to list them.",
      raw: RAW,
      synced_at: SYNCED_AT,
    },
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop schema royalties cascade`.execute(db);
}
