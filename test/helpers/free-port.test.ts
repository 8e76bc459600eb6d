import { once } from "node:events";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { ephemeralLow, freePort } from "./free-port.js";

// A private server's port is chosen, then bound later (and again after each stop). A port the
// kernel may give an outgoing connection meanwhile is one such a server can no longer bind.

describe("a port for a private server", () => {
  it("lies below the local ports of outgoing connections, and a server binds it", async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) expect(port).toBeLessThan(ephemeralLow());
    const server = createServer();
    server.listen(ports[0], "127.0.0.1");
    await once(server, "listening");
    server.close();
    await once(server, "close");
  });
});
