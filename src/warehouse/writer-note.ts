import { type RawBuilder, sql } from "kysely";

/**
 * Who changes a table's rows, as the history trigger reads it (migration 026): the attempt, whether
 * it replays (a replay derives again what was received, so it removes and restates nothing of the
 * upstream's) and whether its stream keeps history.
 */
export interface WriterNote {
  /** The attempt (etl.attempts.attempt_id). */
  readonly attempt: string;
  readonly replaying: boolean;
  readonly keepHistory: boolean;
}

const ATTEMPT_ID = /^[0-9]{1,19}$/;

/**
 * The note as a condition that is always true, for the statement that updates or deletes a row:
 * evaluated as a row qualifies, it sets the transaction's settings before the trigger reads them,
 * at no round trip of its own. Literals, so that a statement's text can be kept per target.
 */
export function writerNoteCondition(note: WriterNote): RawBuilder<boolean> {
  if (!ATTEMPT_ID.test(note.attempt)) throw new Error(`not an attempt id: ${note.attempt}`);
  return sql<boolean>`history.note_writer(${sql.raw(note.attempt)}, ${sql.raw(String(note.replaying))}, ${sql.raw(String(note.keepHistory))})`;
}
