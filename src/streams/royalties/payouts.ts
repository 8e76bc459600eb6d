import { listPayouts } from "../../api/operations/royalties.js";
import { payoutListStream } from "./payout-output.js";

/** Every payout of the account, in its current state. */
export const payouts = payoutListStream("payouts", listPayouts);
