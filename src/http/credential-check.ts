import { AuthError, isUpstreamAnswer } from "./upstream-errors.js";
import type { RequestIdentity } from "./request-budget.js";

/**
 * Until an answer shows the credential is accepted, one request goes out at a time and the
 * others wait for it: a bad key costs one request, not one per concurrent slot. After a 401
 * nothing more is sent until `forget`.
 */
export class CredentialCheck {
  #accepted = false;
  #check: Promise<void> | null = null;
  #refused: AuthError | null = null;

  /** Runs `send` once the credential is known to be good, or as the one send that finds out. */
  async run<T>(identity: RequestIdentity, send: () => Promise<T>): Promise<T> {
    for (;;) {
      if (this.#refused) throw new AuthError(identity, this.#refused.upstreamMessage);
      if (this.#accepted) return send();
      if (!this.#check) break;
      await this.#check;
    }
    let settle!: () => void;
    this.#check = new Promise<void>((resolve) => {
      settle = resolve;
    });
    try {
      const answer = await send();
      this.#accepted = true;
      return answer;
    } catch (error) {
      if (isUpstreamAnswer(error)) this.#accepted = true;
      throw error;
    } finally {
      this.#check = null;
      settle();
    }
  }

  /** A 401: nothing more is sent until `forget`. */
  refuse(refusal: AuthError): void {
    this.#refused = refusal;
  }

  /** The next request checks the credential again, alone, as the first one did. */
  forget(): void {
    this.#refused = null;
    this.#accepted = false;
  }
}
