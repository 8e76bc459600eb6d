import { requireDay } from "../days.js";
import type { SandboxSize } from "../size.js";
import { cmStats } from "./artist-profile.js";
import { type ArtistTrack, artistTracks } from "./artist-tracks.js";
import {
  type AudienceType,
  audienceSnapshot,
  type StatsType,
  socialAudienceRows,
  videoMarketCoverage,
} from "./audience.js";
import { type Catalogue, generateCatalogue } from "./catalogue.js";
import { ChartBook } from "./charts.js";
import { type MoneyDecimals, parseCents } from "./money.js";
import {
  type CuratorPlatform,
  type EditorialPlatform,
  type PlaylistStatus,
  playlistEntries,
} from "./playlists.js";
import { radioAirplays, radioSpins } from "./radio.js";
import type {
  AudienceDomain,
  AudienceSnapshot,
  CatalogueArtist,
  ChartRow,
  CmStats,
  Dsp,
  EmptyObject,
  Income,
  Invoice,
  Label,
  Payout,
  PayoutStatus,
  PlaylistEntry,
  Product,
  RadioAirplay,
  RadioSpin,
  SaleType,
  SelectionType,
  SocialArtist,
  SocialAudienceRow,
  StatSeries,
  Territory,
  TrendChart,
  TrendItem,
  TrendListItem,
  TrendTotals,
  VideoMarketCoverage,
} from "./records.js";
import { formatDays, lateSalesDays, type RevisionChanges } from "./revision.js";
import { type PayoutRequestOutcome, Royalties, type WithdrawalType } from "./royalties.js";
import { generateSocialArtists } from "./social-artists.js";
import { statSeries } from "./stat-series.js";
import { TERRITORIES } from "./territories.js";
import { TrendSales, type TrendUniverses } from "./trends.js";

/** What addPayout takes: an amount like the API's ("150.00" or 150), the rest optional. */
export interface AddPayoutInput {
  amount: string | number;
  status?: PayoutStatus;
  idempotencyKey?: string;
  /** ISO instant; default now. */
  createdAt?: string;
}

/**
 * Everything the sandbox serves, generated from (seed, size, today). Accessors are what the
 * routes call, so a test reading them sees exactly what a client receives before drift. Days are
 * YYYY-MM-DD strings. Generation is lazy: the catalogue on first use, trends and statistics per
 * slice asked for. Returned records are frozen or fresh copies: reading never changes state;
 * only the mutators (set…, add…, requestPayout) do.
 */
export class SandboxDataset {
  readonly today: string;
  private readonly todayDay: number;
  private catalogueMemo: Catalogue | undefined;
  private socialMemo: SocialArtist[] | undefined;
  private universesMemo: TrendUniverses | undefined;
  private readonly tracksMemo = new Map<number, ArtistTrack[]>();
  private readonly trends: TrendSales;
  private readonly charts: ChartBook;
  private readonly money: Royalties;
  private readonly lateDays: readonly number[];
  private revisionLevel = 0;
  private emptyCasesOn = false;

  constructor(
    readonly seed: number,
    readonly size: Readonly<SandboxSize>,
    today: string,
  ) {
    this.todayDay = requireDay(today, "today");
    this.today = today;
    const firstDay = requireDay(size.startDate, "size.startDate");
    const lastDay = firstDay + size.days - 1;
    this.trends = new TrendSales(seed, firstDay, lastDay, size.trendItemsCap, () =>
      this.universes(),
    );
    this.lateDays = lateSalesDays(firstDay, lastDay, this.todayDay);
    this.charts = new ChartBook(seed, size.chartRows, () => this.socialArtists());
    this.money = new Royalties(seed, size.incomes, size.payouts, this.todayDay, () => this.dsps());
  }

  // Late data and restatements

  /** The revision served (the `shapes.revision` knob); 0 is the dataset as generated. */
  get revision(): number {
    return this.revisionLevel;
  }

  /**
   * Serves the dataset at `revision` (an integer ≥ 0): from 1 on, late sales on the last days
   * before today, restated incomes, one pending payout paid, described by revisionChanges(); an
   * endpoint module's records follow the revision as the module says. The sandbox calls this
   * when the knob changes.
   */
  setRevision(revision: number): void {
    if (!Number.isSafeInteger(revision) || revision < 0) {
      throw new Error("revision must be an integer >= 0");
    }
    this.revisionLevel = revision;
    this.trends.setRevision(revision, this.lateDays);
    this.money.setRevision(revision);
  }

  /**
   * Money with 2 or 4 decimals (the `shapes.moneyDecimals` knob). 4 changes the values: every
   * amount gains two digits, and about half are served as JSON numbers.
   */
  setMoneyDecimals(decimals: MoneyDecimals): void {
    this.money.setMoneyDecimals(decimals);
  }

  /**
   * The `shapes.emptyCases` knob: one catalogue artist's photo and the oldest payout's metadata
   * have no field, the first social artist's video audience has no data, and only the revision's
   * payout is pending (so from revision 1 none is).
   */
  setEmptyCases(on: boolean): void {
    this.emptyCasesOn = on;
    this.money.setEmptyCases(on);
  }

  /** What the current revision changes against revision 0, for reconciliation tests. */
  revisionChanges(): RevisionChanges {
    return {
      revision: this.revisionLevel,
      trendDays: this.revisionLevel > 0 ? formatDays(this.lateDays) : [],
      restatedIncomeIds: this.money.restatedIncomeIds(),
      paidPayoutId: this.money.paidByRevision(),
    };
  }

  // Catalogue

  products(): readonly Product[] {
    return this.catalogue().products;
  }

  artists(): readonly CatalogueArtist[] {
    const artists = this.catalogue().artists;
    if (!this.emptyCasesOn) return artists;
    // The first artist without an upload: a photo of nulls is one an upstream may send as {}.
    const bare = artists.find((artist) => artist.photo.has_uploaded === false);
    return artists.map((artist) => (artist === bare ? { ...artist, photo: {} } : artist));
  }

  labels(): readonly Label[] {
    return this.catalogue().labels;
  }

  territories(): readonly Territory[] {
    return TERRITORIES;
  }

  dsps(): readonly Dsp[] {
    return this.catalogue().dsps;
  }

  // Sales trends

  /** Entities with sales on one day (no order promised). */
  trendItems(day: string, selectionType: SelectionType, saleType: SaleType): TrendItem[] {
    return this.trends.dayItems(requireDay(day, "day"), selectionType, saleType);
  }

  /** The full trends list of a range, in served order; pages of getTrendsList slice it. */
  trendList(
    startDay: string,
    endDay: string,
    selectionType: SelectionType,
    saleType: SaleType,
  ): TrendListItem[] {
    return this.trends.list(
      requireDay(startDay, "startDay"),
      requireDay(endDay, "endDay"),
      selectionType,
      saleType,
    );
  }

  trendTotals(startDay: string, endDay: string, selectionType: SelectionType): TrendTotals {
    return this.trends.totals(
      requireDay(startDay, "startDay"),
      requireDay(endDay, "endDay"),
      selectionType,
    );
  }

  trendChart(
    startDay: string,
    endDay: string,
    selectionType: SelectionType,
    saleType: SaleType,
  ): TrendChart {
    return this.trends.chart(
      requireDay(startDay, "startDay"),
      requireDay(endDay, "endDay"),
      selectionType,
      saleType,
    );
  }

  /** Late data: one entity's count on one day becomes `count` (0 removes it from that day). */
  setTrendCount(
    day: string,
    selectionType: SelectionType,
    saleType: SaleType,
    itemId: number | string,
    count: number,
  ): void {
    this.trends.setCount(requireDay(day, "day"), selectionType, saleType, itemId, count);
  }

  // Artist statistics

  socialArtists(): readonly SocialArtist[] {
    this.socialMemo ??= deepFreeze(
      generateSocialArtists(this.seed, this.size.socialArtists, this.artists()),
    );
    return this.socialMemo;
  }

  socialArtist(cmArtist: number): SocialArtist | undefined {
    return this.socialArtists().find((artist) => artist.cm_artist === cmArtist);
  }

  cmStats(cmArtist: number): CmStats {
    return cmStats(this.seed, this.requireArtist(cmArtist), this.todayDay);
  }

  /** One point per day of [since, until], until capped at today (no values from the future). */
  statSeries(cmArtist: number, source: string, since: string, until: string): StatSeries {
    const last = Math.min(requireDay(until, "until"), this.todayDay);
    return statSeries(
      this.seed,
      this.requireArtist(cmArtist),
      source,
      requireDay(since, "since"),
      last,
    );
  }

  /**
   * Snapshot of /social_3-, /short_video- or /video-audience-stats, as of today; under
   * shapes.emptyCases the first social artist has no video audience: an empty object.
   */
  audienceStats(cmArtist: number, domain: AudienceDomain): AudienceSnapshot | EmptyObject {
    const artist = this.requireArtist(cmArtist);
    if (this.emptyCasesOn && domain === "video" && artist === this.socialArtists()[0]) return {};
    return audienceSnapshot(this.seed, artist, domain, this.todayDay);
  }

  socialAudienceStats(
    cmArtist: number,
    domain: AudienceDomain,
    audienceType: AudienceType,
    statsType: StatsType,
    day: string,
  ): SocialAudienceRow[] {
    const artist = this.requireArtist(cmArtist);
    return socialAudienceRows(
      this.seed,
      artist,
      domain,
      audienceType,
      statsType,
      requireDay(day, "day"),
    );
  }

  videoMarketCoverage(cmArtist: number): VideoMarketCoverage {
    return videoMarketCoverage(this.seed, this.requireArtist(cmArtist), this.todayDay);
  }

  /** Every placement of the selection, unfiltered and unpaged. */
  editorialPlaylists(
    cmArtist: number,
    platform: EditorialPlatform,
    status: PlaylistStatus,
  ): PlaylistEntry[] {
    return this.playlists("editorial", cmArtist, platform, status);
  }

  curatorPlaylists(cmArtist: number, platform: CuratorPlatform): PlaylistEntry[] {
    return this.playlists("curator", cmArtist, platform, "current");
  }

  radioAirplays(cmArtist: number, day: string): RadioAirplay[] {
    const artist = this.requireArtist(cmArtist);
    return radioAirplays(this.seed, artist, this.tracks(artist), requireDay(day, "day"));
  }

  radio(cmArtist: number, day: string): RadioSpin[] {
    return radioSpins(this.seed, this.requireArtist(cmArtist), requireDay(day, "day"));
  }

  /** The full chart of a day; days after today have none yet. */
  chart(countryCode: string, genre: string, day: string): ChartRow[] {
    const number = requireDay(day, "day");
    return number > this.todayDay ? [] : this.charts.chart(countryCode, genre, number);
  }

  // Royalties

  payouts(): Payout[] {
    return this.money.payouts();
  }

  pendingPayouts(): Payout[] {
    return this.money.payouts().filter((payout) => payout.status === "pending");
  }

  incomes(): Income[] {
    return this.money.incomes();
  }

  invoice(): Invoice {
    return this.money.invoice();
  }

  /** Available (withdrawable) balance, "1234.56" at start; POST /payouts lowers it. */
  balance(): string {
    return this.money.balance();
  }

  threshold(): string {
    return this.money.threshold();
  }

  /** 1 = payouts on request (start), 2 = monthly (after POST /payouts/set-monthly-type). */
  withdrawalType(): WithdrawalType {
    return this.money.withdrawalType();
  }

  /** What POST /payouts does; amount in cents (the route has validated it). */
  requestPayout(amountCents: number, idempotencyKey?: string): PayoutRequestOutcome {
    return this.money.requestPayout(amountCents, idempotencyKey);
  }

  /** Adds a payout as if created elsewhere; the balance is not touched. */
  addPayout(input: AddPayoutInput): Payout {
    const amountCents = parseCents(input.amount);
    if (amountCents === null) throw new Error(`invalid payout amount ${input.amount}`);
    return this.money.addPayout({ ...input, amountCents });
  }

  /** Moves a payout to a status; paid fills processed_at, method and reference. */
  setPayoutStatus(id: string, status: PayoutStatus): Payout {
    return this.money.setPayoutStatus(id, status);
  }

  setThreshold(amountCents: number): string {
    return this.money.setThreshold(amountCents);
  }

  setWithdrawalType(type: WithdrawalType): void {
    this.money.setWithdrawalType(type);
  }

  private catalogue(): Catalogue {
    this.catalogueMemo ??= deepFreeze(
      generateCatalogue(this.seed, this.size, requireDay(this.size.startDate, "startDate")),
    );
    return this.catalogueMemo;
  }

  private universes(): TrendUniverses {
    if (!this.universesMemo) {
      const { products, assets, labels, dsps } = this.catalogue();
      this.universesMemo = {
        dsp: dsps,
        territory: TERRITORIES,
        label: labels,
        product: products.map((product) => ({ id: product.id, name: product.title })),
        asset: assets.map((asset) => ({ id: asset.id, name: asset.title })),
      };
    }
    return this.universesMemo;
  }

  private playlists(
    kind: "editorial" | "curator",
    cmArtist: number,
    platform: string,
    status: PlaylistStatus,
  ): PlaylistEntry[] {
    const artist = this.requireArtist(cmArtist);
    const selection = {
      kind,
      platform,
      status,
      max: this.size.playlistsPerArtist,
      today: this.todayDay,
    };
    return playlistEntries(this.seed, artist, this.tracks(artist), selection);
  }

  private tracks(artist: SocialArtist): ArtistTrack[] {
    let tracks = this.tracksMemo.get(artist.cm_artist);
    if (!tracks) {
      tracks = artistTracks(this.seed, artist, this.products());
      this.tracksMemo.set(artist.cm_artist, tracks);
    }
    return tracks;
  }

  private requireArtist(cmArtist: number): SocialArtist {
    const artist = this.socialArtist(cmArtist);
    if (!artist) throw new Error(`no social artist ${cmArtist}`);
    return artist;
  }
}

/** Freezes generated records so a caller cannot change what later responses serve. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
