// Which failures are the store's (src/storage/errors.ts storeFailure): they become `503 Storage unavailable`
// (full when the store says it has no space); the request's own faults and our typed errors stay as they are.
// The errors are the SDKs' and Node's own classes, as the drivers meet them.
import { S3ServiceException } from '@aws-sdk/client-s3';
import { RestError } from '@azure/storage-blob';
import { open } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ObjectExistsError, ObjectTooLargeError, StorageUnavailableError, storeFailure } from '../../src/storage/errors.js';

const s3Error = (name: string, status: number) => new S3ServiceException({ name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });

describe('storeFailure', () => {
  it('takes a full disk, a full S3-compatible store and an Azure 507 as full', async () => {
    // /dev/full answers every write with ENOSPC.
    const file = await open('/dev/full', 'w');
    const enospc = await file.write(Buffer.from('x')).then(() => null, (err: unknown) => err);
    await file.close();
    expect(enospc).toMatchObject({ code: 'ENOSPC' });
    for (const err of [enospc, s3Error('XMinioStorageFull', 507), s3Error('QuotaExceeded', 403), new RestError('insufficient storage', { statusCode: 507 })]) {
      expect(storeFailure(err), String(err)).toMatchObject({ code: 'storage_unavailable', full: true });
    }
  });

  it('takes refused connections, time-outs and 5xx as unavailable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    for (const err of [refused, s3Error('InternalError', 500), s3Error('SlowDown', 503), new RestError('send failed', { code: 'REQUEST_SEND_ERROR' }), Object.assign(new Error('idle'), { name: 'TimeoutError' })]) {
      const failure = storeFailure(err);
      expect(failure, String(err)).toBeInstanceOf(StorageUnavailableError);
      expect(failure?.full).toBe(false);
    }
  });

  it('leaves our typed errors and the request\'s own faults alone', () => {
    for (const err of [new ObjectTooLargeError(10), new ObjectExistsError('a.png'), s3Error('AccessDenied', 403), new RestError('not found', { statusCode: 404 }), new Error('plain'), 'text']) {
      expect(storeFailure(err), String(err)).toBeNull();
    }
  });
});
