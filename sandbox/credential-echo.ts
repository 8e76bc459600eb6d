// Some upstreams repeat the request they refused in their error bodies, credential included.
// knobs.echoCredential answers every request so, for tests proving the key goes no further than
// the client that sent it.
import type { IncomingMessage } from "node:http";
import { json, type Reply } from "./http/reply.js";
import type { CredentialEchoStatus } from "./interfaces.js";

export const CREDENTIAL_ECHO_STATUSES: readonly CredentialEchoStatus[] = [200, 400, 401];

/** The bearer token a request carried, or null without one. */
export function bearerToken(request: IncomingMessage): string | null {
  return /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? "")?.[1] ?? null;
}

/**
 * The answer of `status` that repeats `token`, or null when the knob is off. Each puts the token
 * where a client reads its message from (`error`, `message`), and the 400 repeats the request's
 * headers too, as a framework's debug output does.
 */
export function credentialEcho(
  status: CredentialEchoStatus | null,
  token: string | null,
): Reply | null {
  const shown = token ?? "(none)";
  switch (status) {
    case null:
      return null;
    case 401:
      return json(401, { error: `Invalid token ${shown}` });
    case 400:
      return json(400, {
        status: false,
        message: `Invalid request for the token ${shown}`,
        request: { headers: { authorization: `Bearer ${shown}` } },
      });
    case 200:
      return json(200, { status: false, message: `The token ${shown} may not read this resource` });
  }
}
