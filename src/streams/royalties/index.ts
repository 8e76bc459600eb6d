import type { Stream } from "../stream.js";
import { incomes } from "./incomes.js";
import { invoices } from "./invoices.js";
import { payouts, pendingPayouts } from "./payouts.js";

/** The royalties family, in run order; every run syncs each list whole. */
export const royaltiesStreams: readonly Stream[] = [payouts, pendingPayouts, incomes, invoices];
