/** A request the sandbox refuses with this status and JSON body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.message === "string" ? body.message : `HTTP ${status}`);
  }
}

/**
 * 422 with the body of the framework the upstream most likely runs on:
 * `{message: <first error>, errors: {field: [messages]}}`.
 */
export class ValidationError extends HttpError {
  constructor(readonly errors: Record<string, string[]>) {
    const messages = Object.values(errors).flat();
    const more = messages.length > 1 ? ` (and ${messages.length - 1} more errors)` : "";
    super(422, { message: `${messages[0] ?? "The given data was invalid."}${more}`, errors });
  }
}

/** A field's value is invalid; parseParams turns these into one ValidationError. */
export class FieldError extends Error {}
