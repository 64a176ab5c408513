// A remove-background node (type `remove-background`, src/kinds/remove-background.ts): its model, offered only among
// the models this deployment runs that do `remove-background` (hosted only: no offline one ships; with none
// configured the node says which keys add one, role-model-picker.tsx), then its input, the job, the result (the
// subject on a transparent background) and the error, as the image-steps nodes show them (StepsRun).
import type { NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { NodeFrame } from './node-frame';
import { RoleModelPicker } from './role-model-picker';
import { StepsRun } from './step-fields';

export function RemoveBackgroundNode({ id, type, data }: NodeProps<CanvasNode>) {
  return (
    <NodeFrame nodeId={id} type={type}>
      <RoleModelPicker nodeId={id} type={type} model={data.model} />
      <StepsRun nodeId={id} type={type} data={data} variants />
    </NodeFrame>
  );
}
