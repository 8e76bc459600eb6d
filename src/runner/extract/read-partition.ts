import type { ApiClient, Answer } from "../../api/api-client.js";
import type { EtlConfig } from "../../config/etl-config-schema.js";
import { PagingError } from "../../errors.js";
import { PageSizes } from "../../streams/page-sizes.js";
import type { Cursor, Partition } from "../../streams/partition.js";
import type { PageRead } from "../../streams/paging.js";
import { RepeatedPages } from "./repeated-pages.js";
import type { Stream } from "../../streams/stream.js";
import { fetchPages } from "./fetch-pages.js";

export interface ReadPartitionDeps {
  readonly api: ApiClient;
  readonly config: EtlConfig;
  readonly today: string;
  readonly signal?: AbortSignal;
}

/** The records of a partition read from the upstream, and the requests that took. */
export interface PartitionRead {
  readonly records: readonly unknown[];
  readonly requests: number;
}

/**
 * Asks the upstream for one partition's pages, as a sync does, and reads their records, landing
 * and writing nothing: what `etl plan` asks to know what a run will find before it runs. A
 * partition whose pages are read this way is fetched again by the run that syncs it.
 */
export async function readPartition(
  deps: ReadPartitionDeps,
  stream: Stream,
  partition: Partition,
): Promise<PartitionRead> {
  let requests = 0;
  const call = { signal: deps.signal, onTry: () => (requests += 1) };
  const pageSizes = new PageSizes();
  const repeated = new RepeatedPages();
  const records: unknown[] = [];
  const take = (_cursor: Cursor, answers: readonly Answer[]): Promise<PageRead> => {
    const context = {
      today: deps.today,
      position: records.length,
      ownsLink: (link: string) => deps.api.ownsLink(link),
      pageSizes,
    };
    const page = stream.read(answers, partition, context);
    const bytes = answers.reduce((sum, answer) => sum + answer.bytes.length, 0);
    // An upstream that ignores the offset would otherwise be paged forever.
    if (repeated.repeats(page.records, bytes)) {
      throw new PagingError(stream.name, partition.key, records.length);
    }
    records.push(...page.records);
    return Promise.resolve({ list: page.list ?? null, context });
  };
  await fetchPages(deps, { stream, partition, call }, { take });
  return { records, requests };
}
