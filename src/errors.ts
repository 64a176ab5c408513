// Typed errors. Services throw these; src/http/error-handler.ts is the one place that turns them into
// SPEC §7's body `{ error, details? }`. A 5xx never carries an internal message beyond `details`
// where SPEC allows it (generation failures).

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: string,
    readonly extra?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export const badRequest = (message: string, details?: string) =>
  new AppError(400, 'bad_request', message, details);
export const unauthorized = () => new AppError(401, 'unauthorized', 'Unauthorized');
export const forbidden = () => new AppError(403, 'forbidden', 'Forbidden');
export const notFound = (message = 'Not found') => new AppError(404, 'not_found', message);
export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new AppError(409, 'conflict', message, undefined, extra);
export const payloadTooLarge = (message: string) => new AppError(413, 'payload_too_large', message);
export const tooManyRequests = (message: string, retryAfterSeconds: number, details?: string) =>
  new AppError(429, 'too_many_requests', message, details, undefined, {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
export const serviceUnavailable = (message = 'Service unavailable') =>
  new AppError(503, 'service_unavailable', message);
export const internal = (message: string, details?: string, extra?: Record<string, unknown>) =>
  new AppError(500, 'internal', message, details, extra);

/** Thrown by an ObjectStore when a write goes past its byte limit; nothing is left stored. */
export class ObjectTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`object larger than ${limit} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}
