// A mask node (type `mask`, src/kinds/mask.ts). FIRST CUT, to be replaced by its own editor.
import type { NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { NodeFrame } from './node-frame';


export function MaskNode({ id, type }: NodeProps<CanvasNode>) {
  return (
    <NodeFrame nodeId={id} type={type}>
      <p className="muted small">Paint a mask over the connected image.</p>
    </NodeFrame>
  );
}
