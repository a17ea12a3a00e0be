import { AppError } from '../http/errors.ts';

/**
 * Turns a driver error into the API's error, or returns undefined when it is not one we translate
 * (the caller then masks it as a 500). Messages never quote SQL or driver text.
 */
export function translatePgError(err: unknown): AppError | undefined {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  const constraint = (err as { constraint?: string }).constraint;
  switch (code) {
    case '23505':
      return new AppError('CONFLICT', 'A record with the same unique value already exists', constraint ? { constraint } : undefined);
    case '23503':
      return new AppError('CONFLICT', 'The change refers to a record that does not exist or is still referenced', constraint ? { constraint } : undefined);
    case '23514':
    case '23502':
      return new AppError('VALIDATION_ERROR', 'The value breaks a data rule', constraint ? [{ path: constraint, message: 'constraint failed' }] : undefined);
    case '22021':
    case '22P05':
      return new AppError('BAD_REQUEST', 'Text values must be valid UTF-8 without NUL (\\u0000) characters');
    case '22P02':
    case '22007':
    case '22008':
    case '22003':
    case '22001':
      return new AppError('BAD_REQUEST', 'A value has an invalid format or is out of range');
    case '40001':
    case '40P01':
      return new AppError('CONFLICT', 'The request conflicted with a concurrent change; retry it');
    default:
      return undefined;
  }
}
