// A crop node (type `crop`, src/kinds/crop.ts): the box of its input image to keep, in pixels of that image.
import type { NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { IMAGE_SIDE_MAX } from '../../../src/kinds/image-steps.js';
import { NodeFrame } from './node-frame';
import { NumberField, StepsRun } from './step-fields';

export function CropNode({ id, type, data }: NodeProps<CanvasNode>) {
  const f = { nodeId: id, type, data };
  return (
    <NodeFrame nodeId={id} type={type}>
      <div className="step-fields" role="group" aria-label="Crop box">
        <NumberField {...f} field="x" label="Left" min={0} max={IMAGE_SIDE_MAX} />
        <NumberField {...f} field="y" label="Top" min={0} max={IMAGE_SIDE_MAX} />
        <NumberField {...f} field="width" label="Width" min={1} max={IMAGE_SIDE_MAX} />
        <NumberField {...f} field="height" label="Height" min={1} max={IMAGE_SIDE_MAX} />
      </div>
      <StepsRun nodeId={id} type={type} data={data} />
    </NodeFrame>
  );
}
