import { ConfigError } from './config.ts';
import { DataDirInUseError } from './platform/db/data-dir-lock.ts';
import { AppError } from './platform/http/errors.ts';

/** Prints a start-up or CLI failure plainly (expected ones without a stack trace) and exits 1. */
export function fail(err: unknown): never {
  if (err instanceof DataDirInUseError || err instanceof ConfigError || err instanceof AppError) {
    process.stderr.write(`error: ${err.message}\n`);
  } else if ((err as NodeJS.ErrnoException)?.code === 'ECONNREFUSED') {
    process.stderr.write(`error: cannot reach the database (${(err as Error).message})\n`);
  } else {
    process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
}
