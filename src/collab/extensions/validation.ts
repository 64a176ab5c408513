// A change's content, checked before hocuspocus applies it (docs/api.md "Live canvas", the rules table), as a
// hocuspocus extension: the REST canvas limits (root maps, node and edge counts, each field's rule, CANVAS_MAX_BYTES)
// on every change a person sends (../update-check.ts). A refused change is not applied, stored or broadcast: its
// document connection is closed with a reason naming the rule or limit (../protocol.ts REFUSED_CHANGE). A change
// that does not decode cuts off the whole socket (./limits.ts cutOff). Viewers' changes are never applied, so never
// checked here (./limits.ts refuses those that do not decode).
//
// Runs after ./limits.ts and ./persistence.ts (a change that cannot be stored now is refused `not-saving` first).
// New checks of a change's content (by node kind) belong in ../update-check.ts; their closes and messages in
// ../protocol.ts (REFUSED_CHANGE, StatelessMessage).
import type { beforeHandleMessagePayload, Extension } from '@hocuspocus/server';
import * as Y from 'yjs';
import type { Metrics } from '../../metrics.js';
import { frameUpdate } from '../frames.js';
import { CLOSE, refusal } from '../protocol.js';
import { createUpdateCheck, type UpdateCheck, type UpdateLimits } from '../update-check.js';
import { cutOff } from './limits.js';

export interface Validation extends Extension {
  /** A document loaded with its canvas measured elsewhere (./persistence.ts `measured`): see UpdateCheck.seed. */
  seed: UpdateCheck['seed'];
}

/** `metrics`: where refused changes and whole-canvas measures are counted (metrics on). */
export function validation(limits: UpdateLimits, metrics?: Partial<Pick<Metrics, 'refusedChange' | 'canvasMeasured'>>): Validation {
  const updateCheck = createUpdateCheck(limits, undefined, () => metrics?.canvasMeasured?.());
  return {
    seed: (doc, bytes) => updateCheck.seed(doc, bytes),
    extensionName: 'validation',
    priority: 80,
    async beforeHandleMessage({ update: frame, connection, document }: beforeHandleMessagePayload) {
      if (connection.readOnly) return;
      const update = frameUpdate(frame); // read whole by ./limits.ts already
      if (!update) return;
      let decoded: ReturnType<typeof Y.decodeUpdate>;
      try {
        decoded = Y.decodeUpdate(update);
      } catch {
        throw cutOff(connection, refusal(CLOSE.malformedUpdate));
      }
      const refused = updateCheck.check(decoded, document);
      if (refused) {
        metrics?.refusedChange?.(refused.reason);
        throw refusal(refused);
      }
    },
  };
}
