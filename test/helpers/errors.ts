import { ValidationError } from "../../core/errors.js";

/** The ValidationError `fn` throws; any other outcome fails the test. */
export function errorOf(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error("expected a ValidationError");
}
