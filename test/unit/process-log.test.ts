// The process's own JSON lines (src/process-log.ts): what libraries print with console, and Node's warnings, become one
// JSON object a line in the app's shape; errors are serialized as the app's are (never `[object Object]`).
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { processLog, routeConsole, routeProcessEvents } from '../../src/process-log.js';

const saved = { ...console };
const savedWarning = process.listeners('warning');
const savedRejection = process.listeners('unhandledRejection');
const savedException = process.listeners('uncaughtException');
afterEach(() => {
  Object.assign(console, saved);
  for (const [event, listeners] of [['warning', savedWarning], ['unhandledRejection', savedRejection], ['uncaughtException', savedException]] as const) {
    process.removeAllListeners(event);
    for (const l of listeners) process.on(event, l as (...args: unknown[]) => void);
  }
});

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c) => (text += c));
  return { stream, lines: () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>), text: () => text };
}

describe('process log', () => {
  it('writes pino-shaped lines at its level and above', () => {
    const out = capture();
    const log = processLog('warn', out.stream);
    log.info({}, 'not shown');
    log.warn({ jobs: 2 }, 'shown');
    expect(out.lines()).toEqual([{ level: 40, time: expect.any(Number), pid: process.pid, hostname: expect.any(String), jobs: 2, msg: 'shown' }]);
  });

  it('routes console output, an Error argument as err and a plain-object error read as one', () => {
    const out = capture();
    routeConsole(processLog('info', out.stream));
    console.error('closing connection %s because of exception', 'abc', new Error('Unexpected end of array'));
    console.warn('Hocuspocus: closing connection 1');
    console.log({ message: 'terminating connection', code: '57P01' });
    console.debug('below the level');
    const [first, second, third] = out.lines();
    expect(first).toMatchObject({ level: 50, source: 'console', msg: 'closing connection abc because of exception', err: { type: 'Error', message: 'Unexpected end of array' } });
    expect(second).toMatchObject({ level: 40, source: 'console', msg: 'Hocuspocus: closing connection 1' });
    expect(third).toMatchObject({ level: 30, msg: "{ message: 'terminating connection', code: '57P01' }" });
    expect(out.lines()).toHaveLength(3);
    expect(out.text()).not.toContain('[object Object]');
  });

  it("Node's warnings become JSON lines instead of Node's plain text", async () => {
    const out = capture();
    routeProcessEvents(processLog('info', out.stream));
    const seen = new Promise((resolve) => process.once('warning', resolve));
    process.emitWarning('something is deprecated', 'DeprecationWarning');
    await seen;
    expect(out.lines()).toEqual([expect.objectContaining({ level: 40, source: 'node', msg: 'DeprecationWarning: something is deprecated', err: expect.objectContaining({ type: 'DeprecationWarning' }) })]);
  });
});
