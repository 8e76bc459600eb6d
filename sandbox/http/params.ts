import { parseCents } from "../dataset/money.js";
import { parseDateTimeDay, parseDay } from "../days.js";
import { FieldError, ValidationError } from "./errors.js";

/** Reads one field: returns its value or throws FieldError naming the field by `label`. */
export type Field<T> = (raw: unknown, label: string) => T;

export type Parsed<S> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

const isAbsent = (raw: unknown) => raw === undefined || raw === null || raw === "";

/**
 * Reads every field of `spec` from a query or JSON body, collecting all errors into one 422,
 * as a strict upstream validates the whole request before answering.
 */
export function parseParams<S extends Record<string, Field<unknown>>>(
  source: Record<string, unknown>,
  spec: S,
): Parsed<S> {
  const errors: Record<string, string[]> = {};
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(spec)) {
    try {
      // The field's own name, not prose, so a message points at the parameter to fix.
      values[name] = field(source[name], name);
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      errors[name] = [error.message];
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return values as Parsed<S>;
}

export function required<T>(field: Field<T>): Field<T> {
  return (raw, label) => {
    if (isAbsent(raw)) throw new FieldError(`The ${label} field is required.`);
    return field(raw, label);
  };
}

export function optional<T, const D>(field: Field<T>, fallback: D): Field<T | D> {
  return (raw, label) => (isAbsent(raw) ? fallback : field(raw, label));
}

/** An integer given as a JSON number or as digits (query strings, and bodies sending text). */
export function integer(
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): Field<number> {
  return (raw, label) => {
    const value = typeof raw === "string" && /^-?\d+$/.test(raw) ? Number(raw) : raw;
    if (typeof value !== "number" || !Number.isSafeInteger(value)) {
      throw new FieldError(`The ${label} field must be an integer.`);
    }
    if (value < min) throw new FieldError(`The ${label} field must be at least ${min}.`);
    if (value > max) throw new FieldError(`The ${label} field must not be greater than ${max}.`);
    return value;
  };
}

export function oneOf<T extends string>(allowed: readonly T[]): Field<T> {
  return (raw, label) => {
    if (typeof raw !== "string" || !(allowed as readonly string[]).includes(raw)) {
      throw new FieldError(`The selected ${label} is invalid.`);
    }
    return raw as T;
  };
}

/** A YYYY-MM-DD date, as a day number. */
export const date: Field<number> = (raw, label) => {
  const day = typeof raw === "string" ? parseDay(raw) : null;
  if (day === null) throw new FieldError(`The ${label} field must match the format Y-m-d.`);
  return day;
};

/** A YYYY-MM-DDThh:mm:ss date-time, as the day number of its date. */
export const dateTime: Field<number> = (raw, label) => {
  const day = typeof raw === "string" ? parseDateTimeDay(raw) : null;
  if (day === null) throw new FieldError(`The ${label} field must match the format Y-m-d\\TH:i:s.`);
  return day;
};

/** A text or numeric identifier (numeric ids may be sent as JSON numbers). */
export const identifier: Field<string> = (raw, label) => {
  if (typeof raw === "string" || (typeof raw === "number" && Number.isFinite(raw)))
    return String(raw);
  throw new FieldError(`The ${label} field must be a string or a number.`);
};

export const jsonObject: Field<Record<string, unknown>> = (raw, label) => {
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw))
    return raw as Record<string, unknown>;
  throw new FieldError(`The ${label} field must be an object.`);
};

export const text: Field<string> = (raw, label) => {
  if (typeof raw !== "string") throw new FieldError(`The ${label} field must be a string.`);
  return raw;
};

/** A money amount (period as decimal separator, at most two places), in cents. */
export function amount(minimumCents: number): Field<number> {
  return (raw, label) => {
    const cents = parseCents(raw);
    if (cents === null) throw new FieldError(`The ${label} field must be a number.`);
    if (cents < minimumCents) {
      throw new FieldError(`The ${label} field must be at least ${minimumCents / 100}.`);
    }
    return cents;
  };
}
