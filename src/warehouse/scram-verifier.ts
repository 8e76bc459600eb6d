import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";

/** PostgreSQL's default (scram_iterations). */
const ITERATIONS = 4096;

/**
 * SASLprep (RFC 4013) as node-postgres and libpq apply it to a password: non-ASCII spaces become
 * spaces, characters "commonly mapped to nothing" are removed, then NFKC.
 */
function saslprep(password: string): string {
  return (
    password
      .replace(/[\u00A0\u1680\u2000-\u200B\u202F\u205F\u3000]/g, " ")
      // eslint-disable-next-line no-misleading-character-class -- the RFC's table, on purpose
      .replace(/[\u00AD\u034F\u1806\u180B\u180C\u180D\u200C\u200D\u2060\uFE00-\uFE0F\uFEFF]/g, "")
      .normalize("NFKC")
  );
}

/**
 * The SCRAM-SHA-256 verifier of a password, in the form PostgreSQL stores
 * (`SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`). Sent instead of the password
 * (like psql's \password does), so the password itself never reaches the server, its statement
 * log or an error message.
 */
export function scramSha256Verifier(password: string, salt: Buffer = randomBytes(16)): string {
  const salted = pbkdf2Sync(saslprep(password), salt, ITERATIONS, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${ITERATIONS}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}
