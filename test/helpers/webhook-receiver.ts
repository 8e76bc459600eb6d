import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the receiver got: its headers and raw body. */
export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A local webhook receiver, as a notification target: it keeps every request, and answers each
 * with the next status of `statuses` (then 200).
 */
export async function startWebhookReceiver(statuses: number[] = []): Promise<{
  readonly url: string;
  readonly received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
      response.statusCode = statuses.shift() ?? 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/secret-path`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
