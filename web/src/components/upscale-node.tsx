// A upscale node (type `upscale`, src/kinds/upscale.ts). FIRST CUT, to be replaced by its own editor.
import type { NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { NodeFrame } from './node-frame';
import { StepsRun } from './step-fields';

export function UpscaleNode({ id, type, data }: NodeProps<CanvasNode>) {
  return (
    <NodeFrame nodeId={id} type={type}>
      <StepsRun nodeId={id} type={type} data={data} />
    </NodeFrame>
  );
}
