// The AppError a promise fails with (the test fails when it succeeds, or fails with anything else).
import { expect } from 'vitest';
import { AppError } from '../../src/errors.js';

export async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}
