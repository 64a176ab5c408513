// An upscale node (type `upscale`, src/kinds/upscale.ts): its model, offered only among the models this deployment
// runs that do `upscale` (the offline ESRGAN ones, hosted upscalers with their keys; role-model-picker.tsx), then its
// input, the job, the result (2× or 4× the input) and the error, as the image-steps nodes show them (StepsRun). Its
// Run ▶ is the node frame's: a graph run of the node, recorded as a generation with no prompt.
import type { NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { NodeFrame } from './node-frame';
import { RoleModelPicker } from './role-model-picker';
import { StepsRun } from './step-fields';

export function UpscaleNode({ id, type, data }: NodeProps<CanvasNode>) {
  return (
    <NodeFrame nodeId={id} type={type}>
      <RoleModelPicker nodeId={id} type={type} model={data.model} />
      <StepsRun nodeId={id} type={type} data={data} variants />
    </NodeFrame>
  );
}
