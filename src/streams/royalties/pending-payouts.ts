import { listPendingPayouts } from "../../api/operations/royalties.js";
import { payoutListStream } from "./payout-output.js";

/** The pending payouts: the same table as `payouts`, from the upstream's own pending list. */
export const pendingPayouts = payoutListStream("pending_payouts", listPendingPayouts);
