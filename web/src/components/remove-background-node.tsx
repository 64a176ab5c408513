// A remove background node (type `remove-background`, src/kinds/remove-background.ts). FIRST CUT, to be replaced by its own editor.
import type { NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { NodeFrame } from './node-frame';
import { StepsRun } from './step-fields';

export function RemoveBackgroundNode({ id, type, data }: NodeProps<CanvasNode>) {
  return (
    <NodeFrame nodeId={id} type={type}>
      <StepsRun nodeId={id} type={type} data={data} />
    </NodeFrame>
  );
}
