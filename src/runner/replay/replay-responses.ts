import type { Warehouse } from "../../warehouse/database.js";
import { type StoredResponse, storedResponses } from "../../warehouse/responses.js";

/**
 * Responses one statement reads at most: a chunk of a year's radio is 64 partitions, and one of
 * the largest pages (a catalogue's) is a few megabytes held at once.
 */
const CHUNK_RESPONSES = 64;

/** The syncs a replay loads, in the order it asks for their responses. */
interface Sync {
  readonly attemptId: string;
  readonly responseIds: readonly string[];
}

/** Held only through its syncs not given their responses yet: after the last, it is let go. */
interface Chunk {
  readonly ids: readonly string[];
  loaded: Promise<ReadonlyMap<string, StoredResponse>> | null;
}

/**
 * The stored responses of a replay's syncs, read a chunk of consecutive syncs at a time in one
 * statement when the first of them is asked for: a replay of partitions of one response each
 * otherwise spends a round trip on every partition's read, beside its writes (docs/benchmarks.md).
 * A sync's responses are given once, in its order, those no longer stored left out.
 */
export class ReplayResponses {
  readonly #db: Warehouse;
  readonly #chunks = new Map<string, Chunk>();

  constructor(db: Warehouse, syncs: readonly Sync[], chunkResponses = CHUNK_RESPONSES) {
    this.#db = db;
    let members: Sync[] = [];
    const close = () => {
      const chunk: Chunk = {
        ids: [...new Set(members.flatMap((sync) => sync.responseIds))],
        loaded: null,
      };
      for (const sync of members) this.#chunks.set(sync.attemptId, chunk);
      members = [];
    };
    let count = 0;
    for (const sync of syncs) {
      members.push(sync);
      count += sync.responseIds.length;
      if (count >= chunkResponses) {
        close();
        count = 0;
      }
    }
    if (members.length > 0) close();
  }

  /** The responses of `sync` still stored, in its order; its chunk is read if it is not yet. */
  async of(sync: Sync): Promise<StoredResponse[]> {
    const chunk = this.#chunks.get(sync.attemptId);
    if (!chunk) throw new Error(`the responses of attempt ${sync.attemptId} were asked twice`);
    this.#chunks.delete(sync.attemptId);
    chunk.loaded ??= storedResponses(this.#db, chunk.ids).then(
      (responses) => new Map(responses.map((response) => [response.responseId, response])),
    );
    const byId = await chunk.loaded;
    return sync.responseIds.flatMap((id) => byId.get(id) ?? []);
  }
}
