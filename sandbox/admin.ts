import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJsonObject, readBody } from "./http/read-body.js";
import { writeResponse } from "./http/reply.js";
import type { SandboxState } from "./sandbox-state.js";

export const ADMIN_PREFIX = "/__sandbox/";

/**
 * GET /__sandbox/stats and POST /__sandbox/knobs, for a separate process (demo, manual runs).
 * Outside the API: no auth, not counted, and answered even when the sandbox plays "down".
 */
export async function handleAdmin(
  state: SandboxState,
  request: IncomingMessage,
  response: ServerResponse,
  pathname: string,
): Promise<void> {
  const route = `${request.method} ${pathname}`;
  if (route === "GET /__sandbox/stats") {
    writeResponse(response, 200, JSON.stringify(state.stats.snapshot()));
  } else if (route === "POST /__sandbox/knobs") {
    try {
      const knobs = state.setKnobs(parseJsonObject(await readBody(request)));
      writeResponse(response, 200, JSON.stringify({ knobs }));
    } catch (error) {
      writeResponse(response, 400, JSON.stringify({ error: (error as Error).message }));
    }
  } else {
    writeResponse(response, 404, JSON.stringify({ error: "Not found" }));
  }
}
