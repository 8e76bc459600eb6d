/**
 * The statements that write a BI dataset straight into the warehouse's tables, inside Postgres
 * (generate_series, no rows through the bench's process). Deterministic: the same scale gives the
 * same rows, so that every run plans the same queries over the same data. Values are whole numbers
 * the bench computes, interpolated as literals; everything textual is generated in SQL.
 */

const WORDS = [
  "Live",
  "Hour",
  "Señorita",
  "Electric",
  "Blue",
  "Night",
  "Echo",
  "Summer",
  "Ghost",
  "Gold",
  "Zoë",
  "Rêve",
];
export const DSP_NAMES = [
  "Spotify",
  "Apple Music",
  "Amazon Music",
  "YouTube Music",
  "Deezer",
  "Tidal",
  "Pandora",
  "SoundCloud",
  "Napster",
  "iHeartRadio",
  "Anghami",
  "Boomplay",
  "JioSaavn",
  "Gaana",
  "NetEase Cloud Music",
  "QQ Music",
  "KKBox",
  "Yandex Music",
  "VK Music",
  "Audiomack",
  "Qobuz",
  "7digital",
  "Beatport",
  "Traxsource",
  "TikTok",
  "Facebook",
  "Instagram",
  "Shazam",
  "Joox",
  "Melon",
];
const TERRITORIES: readonly (readonly [string, string])[] = [
  ["US", "United States"],
  ["GB", "United Kingdom"],
  ["DE", "Germany"],
  ["FR", "France"],
  ["ES", "Spain"],
  ["IT", "Italy"],
  ["NL", "Netherlands"],
  ["BE", "Belgium"],
  ["SE", "Sweden"],
  ["NO", "Norway"],
  ["DK", "Denmark"],
  ["FI", "Finland"],
  ["PL", "Poland"],
  ["PT", "Portugal"],
  ["IE", "Ireland"],
  ["AT", "Austria"],
  ["CH", "Switzerland"],
  ["CZ", "Czechia"],
  ["GR", "Greece"],
  ["HU", "Hungary"],
  ["RO", "Romania"],
  ["TR", "Türkiye"],
  ["CA", "Canada"],
  ["MX", "Mexico"],
  ["BR", "Brazil"],
  ["AR", "Argentina"],
  ["CO", "Colombia"],
  ["CL", "Chile"],
  ["PE", "Peru"],
  ["JP", "Japan"],
  ["KR", "South Korea"],
  ["CN", "China"],
  ["IN", "India"],
  ["ID", "Indonesia"],
  ["PH", "Philippines"],
  ["AU", "Australia"],
  ["NZ", "New Zealand"],
  ["ZA", "South Africa"],
  ["NG", "Nigeria"],
  ["EG", "Egypt"],
];
const GENRES = ["Pop", "Hip-Hop", "Electronic", "Rock", "Latin", "R&B", "Jazz", "Classical"];
const SOURCES = ["streaming", "download", "youtube", "ugc", "neighbouring_rights"];

/** The large account, per day or in all: scaled by BiScale.times (DSPs and territories stay). */
export const LARGE = {
  products: 5_000,
  /** Two tracks per product. */
  assets: 10_000,
  labels: 50,
  artists: 1_000,
  dsps: DSP_NAMES.length,
  territories: TERRITORIES.length,
  /** Streams a day, in each selection type's list (the sandbox's account). */
  dailyStreams: 2_000_000,
  incomesPerYear: 200_000,
  payouts: 5_000,
} as const;

/** Downloads per stream, on average. */
const DOWNLOADS_PER_STREAM = 1 / 400;
/** An item's share of late sales on a restated day: its first version held this much less. */
export const LATE_SHARE = 0.03;

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const textArray = (values: readonly string[]) => `array[${values.map(literal).join(", ")}]`;

/** A pick from `values` by a hash of the integer expression `key` (SQL). */
function pick(values: readonly string[], key: string): string {
  return `(${textArray(values)})[1 + (hashint4((${key})::int) & 2147483647) % ${values.length}]`;
}

/** A uniform number in [0, 1) from a hash of the integer expression `key` (SQL). */
const unit = (key: string) => `((hashint4((${key})::int) & 1048575)::float8 / 1048576)`;

/** A title of three words and a number, from the integer expression `key` (SQL). */
const title = (key: string) =>
  `${pick(WORDS, `${key} * 7 + 1`)} || ' ' || ${pick(WORDS, `${key} * 7 + 2`)} || ' the ' || ${pick(WORDS, `${key} * 7 + 3`)} || ' ' || ${key}`;

/**
 * Every entity with sales, its id as the trend list sends it (a number, or a territory's code), its
 * name, its mean streams a day (a popularity of 0.02 + u⁴, as the sandbox's, so that a few sell
 * most) and its rank in the trend items' key order, so that a day is written in key order.
 */
export function entitiesStatements(times: number): string[] {
  const counts = {
    dsp: LARGE.dsps,
    territory: LARGE.territories,
    label: LARGE.labels * times,
    product: LARGE.products * times,
    asset: LARGE.assets * times,
  };
  const selections = Object.keys(counts);
  const entity = (selection: string, id: string, name: string) => {
    const salt = selections.indexOf(selection);
    return `select ${literal(selection)}, (${id})::text, to_jsonb(${id}), ${name}, i,
             0.02 + power(${unit(`i * 8 + ${salt}`)}, 4), i * 8 + ${salt}
        from generate_series(1, ${counts[selection as keyof typeof counts]}) i`;
  };
  const columns = "(selection_type, item_id, id_json, name, ord, weight, key8)";
  return [
    "create schema bench_gen",
    `create table bench_gen.entities (selection_type text, item_id text, id_json jsonb, name text,
       ord int, weight float8, key8 bigint, mean float8, rank int)`,
    `insert into bench_gen.entities ${columns} ${entity("dsp", "i", `(${textArray(DSP_NAMES)})[i]`)}`,
    `insert into bench_gen.entities ${columns}
       select 'territory', code, to_jsonb(code), name, i,
              0.02 + power(${unit("i * 8 + 1")}, 4), i * 8 + 1
         from unnest(${textArray(TERRITORIES.map(([code]) => code))},
                     ${textArray(TERRITORIES.map(([, name]) => name))}) with ordinality t (code, name, i)`,
    `insert into bench_gen.entities ${columns} ${entity("label", "700000 + i", `'Label ' || ${title("i")}`)}`,
    `insert into bench_gen.entities ${columns} ${entity("product", "100000 + i", title("i"))}`,
    `insert into bench_gen.entities ${columns} ${entity("asset", "1000000 + i", title("i * 3 + 5"))}`,
    `update bench_gen.entities e
        set mean = ${LARGE.dailyStreams * times} * e.weight / w.total
       from (select selection_type, sum(weight) as total from bench_gen.entities group by 1) w
      where w.selection_type = e.selection_type`,
    `update bench_gen.entities e set rank = r.rank
       from (select selection_type, item_id,
                    row_number() over (partition by selection_type order by item_id) as rank
               from bench_gen.entities) r
      where r.selection_type = e.selection_type and r.item_id = e.item_id`,
    "analyze bench_gen.entities",
  ];
}

/** The catalogue: DSPs, territories, assets (two per product), products with their assets. */
export function catalogueStatements(times: number): string[] {
  const artists = LARGE.artists * times;
  const labels = LARGE.labels * times;
  return [
    `insert into catalogue.dsps (dsp_id, name, code, state, raw)
     select item_id::bigint, name, 'DSP' || lpad(ord::text, 3, '0'), 'active',
            jsonb_build_object('id', item_id::bigint, 'name', name,
                               'code', 'DSP' || lpad(ord::text, 3, '0'), 'state', 'active')
       from bench_gen.entities where selection_type = 'dsp'`,
    `insert into catalogue.territories (code, territory_id, name, raw)
     select item_id, item_id, name, jsonb_build_object('id', item_id, 'code', item_id, 'name', name)
       from bench_gen.entities where selection_type = 'territory'`,
    `insert into catalogue.assets
       (asset_id, product_id, isrc, raw, title, duration, track_number, explicit)
     select id, product_id, isrc,
            jsonb_build_object('id', id, 'isrc', isrc, 'title', name, 'duration', duration,
                               'track_number', track_number, 'explicit', explicit),
            name, duration, track_number, explicit
       from (select item_id::bigint as id, 100000 + (ord + 1) / 2 as product_id, name,
                    'GBABC' || to_char(20 + ord / 100000, 'FM00') || lpad((ord % 100000)::text, 5, '0')
                      as isrc,
                    90 + (hashint4(ord * 11) & 2147483647) % 330 as duration,
                    2 - ord % 2 as track_number,
                    (hashint4(ord * 13) & 15) = 0 as explicit
               from bench_gen.entities where selection_type = 'asset') a`,
    `insert into catalogue.products
       (product_id, upc, raw, title, label, label_id, release_date, artist_id, artist_name, genre,
        format)
     select p.id, p.upc,
            jsonb_build_object('id', p.id, 'upc', p.upc, 'title', p.name, 'label', l.name,
                               'label_id', l.item_id::bigint, 'release_date', p.release_date,
                               'artist_id', p.artist_id, 'artist_name', p.artist_name,
                               'genre', p.genre, 'format', 'Single',
                               'assets', (select jsonb_agg(a.raw order by a.asset_id)
                                            from catalogue.assets a where a.product_id = p.id)),
            p.name, l.name, l.item_id::bigint, p.release_date, p.artist_id, p.artist_name, p.genre,
            'Single'
       from (select item_id::bigint as id, ord, name, '1' || lpad(ord::text, 11, '0') as upc,
                    date '2010-01-01' + (hashint4(ord * 5) & 2147483647) % 5800 as release_date,
                    300000 + ord % ${artists} as artist_id,
                    'Artist ' || ${title(`ord % ${artists}`)} as artist_name,
                    ${pick(GENRES, "ord * 17")} as genre
               from bench_gen.entities where selection_type = 'product') p
       join bench_gen.entities l on l.selection_type = 'label' and l.ord = 1 + p.ord % ${labels}`,
  ];
}

/**
 * One day of trend items, every entity in both sale types, in the table's key order; each
 * list's percentages add up to 100 and `$2`, the day's index, seeds its counts. Returns each
 * list's sum (the day's totals). $1 day, $2 index, $3 synced_at, $4 the day's factor.
 */
export const DAY_ITEMS = `
  with counted as (
    select $1::date as day, e.selection_type, s.sale_type, e.item_id, e.id_json, e.name, e.rank,
           greatest(1, round(e.mean * s.factor * $4::float8 * (0.6 + 0.8 *
             ((hashint8extended(e.key8, $2::bigint * 2 + s.idx) & 1048575)::float8 / 1048576)
           )))::bigint as count
      from bench_gen.entities e,
           (values (0, 'stream', 1::float8), (1, 'download', ${DOWNLOADS_PER_STREAM}::float8))
             s (idx, sale_type, factor)),
  shared as (
    select c.*,
           round(100.0 * c.count / sum(c.count) over (partition by c.selection_type, c.sale_type), 2)
             as percentage
      from counted c),
  written as (
    insert into sales.trend_items
      (day, selection_type, sale_type, item_id, raw, synced_at, name, count, percentage)
    select day, selection_type, sale_type, item_id,
           jsonb_build_object('id', id_json, 'name', name, 'count', count, 'percentage', percentage),
           $3::timestamptz, name, count, percentage
      from shared
     order by selection_type, sale_type, rank
    returning selection_type, sale_type, count)
  select selection_type, sale_type, sum(count)::text as units from written group by 1, 2`;

/**
 * The versions a restated day's items left in the history, as its trigger writes them: each
 * item first seen with LATE_SHARE fewer, valid from the day's first sync ($2) to the restatement
 * (the row's synced_at). $1 the day.
 */
export const DAY_ITEM_VERSIONS = `
  insert into history.row_versions (table_name, key, old_values, new_values, valid_from, seen_at)
  select 'sales.trend_items',
         jsonb_build_object('day', day, 'selection_type', selection_type, 'sale_type', sale_type,
                            'item_id', item_id),
         jsonb_build_object('day', day, 'selection_type', selection_type, 'sale_type', sale_type,
                            'item_id', item_id, 'name', name,
                            'count', floor(count * (1 - ${LATE_SHARE}))::bigint,
                            'percentage', percentage),
         jsonb_build_object('count', count), $2::timestamptz, synced_at
    from sales.trend_items where day = $1::date`;

/**
 * The totals, one row per day and selection type, the sums of its lists; percentages the change
 * against the day before, as the upstream's are of its range. $1 days, $2 selection types, $3
 * streams, $4 downloads, $5 synced_at (arrays).
 */
export const TOTALS = `
  insert into sales.trend_totals
    (day, selection_type, stream_count, download_count, stream_percentage, download_percentage,
     raw, synced_at)
  select day, selection_type, streams, downloads, sp, dp,
         jsonb_build_object('stream_count', streams, 'stream_percentage', sp,
                            'download_count', downloads, 'download_percentage', dp),
         synced_at
    from (select t.*,
                 round(100.0 * (streams - lag(streams) over w) / nullif(lag(streams) over w, 0), 2)
                   as sp,
                 round(100.0 * (downloads - lag(downloads) over w) / nullif(lag(downloads) over w, 0), 2)
                   as dp
            from unnest($1::date[], $2::text[], $3::bigint[], $4::bigint[], $5::timestamptz[])
                   t (day, selection_type, streams, downloads, synced_at)
          window w as (partition by selection_type order by day)) d
   order by day, selection_type`;

/** The restated days' totals' first versions, as DAY_ITEM_VERSIONS. $1 days, $2 first syncs. */
export const TOTALS_VERSIONS = `
  insert into history.row_versions (table_name, key, old_values, new_values, valid_from, seen_at)
  select 'sales.trend_totals',
         jsonb_build_object('day', t.day, 'selection_type', t.selection_type),
         jsonb_build_object('day', t.day, 'selection_type', t.selection_type,
                            'stream_count', floor(t.stream_count * (1 - ${LATE_SHARE}))::bigint,
                            'download_count', floor(t.download_count * (1 - ${LATE_SHARE}))::bigint,
                            'stream_percentage', t.stream_percentage,
                            'download_percentage', t.download_percentage),
         jsonb_build_object('stream_count', t.stream_count, 'download_count', t.download_count),
         r.first_sync, t.synced_at
    from sales.trend_totals t
    join unnest($1::date[], $2::timestamptz[]) r (day, first_sync) on r.day = t.day
   order by t.synced_at, t.selection_type`;

/**
 * The incomes, `perMonth` a month from `firstMonth` for `months`, with the fields the sandbox's
 * have (each its discovered column too).
 */
export function incomesStatement(firstMonth: string, months: number, perMonth: number): string {
  return `
  insert into royalties.incomes
    (income_key, period_start, raw, id, period, source, dsp, territory, amount, currency, created_at)
  select id::text, month,
         jsonb_build_object('id', id, 'period', to_char(month, 'YYYY-MM'), 'source', source,
                            'dsp', dsp, 'territory', territory, 'amount', amount,
                            'currency', currency, 'created_at', created_at),
         id, to_char(month, 'YYYY-MM'), source, dsp, territory, amount, currency, created_at
    from (select m * ${perMonth} + i as id,
                 (date ${literal(firstMonth)} + make_interval(months => m))::date as month,
                 ${pick(SOURCES, `(m * ${perMonth} + i) * 3`)} as source,
                 ${pick(DSP_NAMES, `(m * ${perMonth} + i) * 3 + 1`)} as dsp,
                 ${pick(
                   TERRITORIES.map(([code]) => code),
                   `(m * ${perMonth} + i) * 3 + 2`,
                 )} as territory,
                 round((power(${unit(`(m * ${perMonth} + i) * 5`)}, 3) * 200)::numeric, 6) as amount,
                 case when (hashint4((m * ${perMonth} + i) * 7) & 15) < 10 then 'EUR'
                      when (hashint4((m * ${perMonth} + i) * 7) & 15) < 14 then 'USD'
                      else 'GBP' end as currency,
                 timestamptz ${literal(`${firstMonth} 00:00:00+00`)}
                   + make_interval(months => m + 1, days => 9) as created_at
            from generate_series(0, ${months - 1}) m, generate_series(1, ${perMonth}) i) x`;
}

/**
 * `count` payouts requested over the dataset's days, most paid; its trigger writes each one's
 * status history, as a sync does.
 */
export function payoutsStatement(count: number, firstDay: string, days: number, seenOn: string) {
  return `
  insert into royalties.payouts
    (payout_id, user_id, amount, currency, fees, net_amount, wallet, status, method, reference,
     created_at, processed_at, notes, idempotency_key, raw, last_seen_on)
  select payout_id, 'U-1001', amount, currency, fees, amount - fees, wallet, status, method,
         reference, created_at, processed_at, notes, idempotency_key,
         jsonb_build_object('id', payout_id, 'user_id', 'U-1001', 'amount', amount,
                            'currency', currency, 'fees', fees, 'net_amount', amount - fees,
                            'wallet', wallet, 'status', status, 'method', method,
                            'reference', reference, 'created_at', created_at,
                            'processed_at', processed_at, 'notes', notes,
                            'idempotency_key', idempotency_key),
         date ${literal(seenOn)}
    from (select p.*, round(p.amount * 0.01, 2) as fees,
                 case when status = 'pending' then null else 'bank_transfer' end as method,
                 case when status = 'paid' then 'REF-' || lpad(i::text, 8, '0') end as reference,
                 case when status in ('paid', 'failed') then created_at + interval '3 days' end
                   as processed_at,
                 case when status = 'failed' then 'The bank refused the transfer'
                      when status = 'cancelled' then 'Cancelled by the account holder' end as notes
            from (select i, 'PO-' || lpad(i::text, 7, '0') as payout_id,
                         round((50 + (hashint4(i * 3) & 2147483647) % 500000 / 100.0)::numeric, 2)
                           as amount,
                         case when (hashint4(i * 5) & 7) < 6 then 'EUR' else 'USD' end as currency,
                         round((100 + (hashint4(i * 11) & 2147483647) % 900000 / 100.0)::numeric, 2)
                           as wallet,
                         case when (hashint4(i * 7) & 2147483647) % 100 < 80 then 'paid'
                              when (hashint4(i * 7) & 2147483647) % 100 < 86 then 'pending'
                              when (hashint4(i * 7) & 2147483647) % 100 < 90 then 'processing'
                              when (hashint4(i * 7) & 2147483647) % 100 < 95 then 'failed'
                              else 'cancelled' end as status,
                         timestamptz ${literal(`${firstDay} 00:00:00+00`)}
                           + make_interval(secs => i * ${(days * 86_400) / count}) as created_at,
                         md5(i::text)::uuid::text as idempotency_key
                    from generate_series(1, ${count}) i) p) x`;
}
