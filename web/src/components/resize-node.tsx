// A resize node (type `resize`, src/kinds/resize.ts): its input image at a new width and/or height, fitted as chosen.
import type { NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { IMAGE_SIDE_MAX } from '../../../src/kinds/image-steps.js';
import { NodeFrame } from './node-frame';
import { ChoiceField, NumberField, StepsRun } from './step-fields';

const FITS = [
  { value: 'contain', label: 'Contain (all of it, with bars)' },
  { value: 'cover', label: 'Cover (filled, edges cut)' },
  { value: 'fill', label: 'Fill (stretched)' },
];

export function ResizeNode({ id, type, data }: NodeProps<CanvasNode>) {
  const f = { nodeId: id, type, data };
  return (
    <NodeFrame nodeId={id} type={type}>
      <div className="step-fields" role="group" aria-label="New size">
        <NumberField {...f} field="width" label="Width" min={1} max={IMAGE_SIDE_MAX} />
        <NumberField {...f} field="height" label="Height" min={1} max={IMAGE_SIDE_MAX} />
        <ChoiceField nodeId={id} data={data} field="fit" label="Fit" choices={FITS} />
      </div>
      <StepsRun nodeId={id} type={type} data={data} />
    </NodeFrame>
  );
}
