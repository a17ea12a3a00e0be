/** The closed list of error codes and the one table that maps each to an HTTP status. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  REVISION_MISMATCH: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** Extra response headers (Allow, Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.statusCode = ERROR_STATUS[code];
  }
}

export const notFound = (what: string, id: string): AppError =>
  new AppError('NOT_FOUND', `${what} '${id}' not found`);

export const conflict = (message: string, details?: unknown): AppError => new AppError('CONFLICT', message, details);

export const unprocessable = (message: string, details?: unknown): AppError =>
  new AppError('UNPROCESSABLE', message, details);

export const validation = (path: string, message: string): AppError =>
  new AppError('VALIDATION_ERROR', `${path}: ${message}`, [{ path, message }]);
