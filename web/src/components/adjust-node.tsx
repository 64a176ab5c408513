// An adjust node (type `adjust`, src/kinds/adjust.ts): its input image's colours adjusted; empty fields change nothing.
import type { NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { ADJUST_BLUR_MAX, ADJUST_FACTOR_MAX } from '../../../src/kinds/adjust.js';
import { NodeFrame } from './node-frame';
import { CheckField, NumberField, StepsRun } from './step-fields';

export function AdjustNode({ id, type, data }: NodeProps<CanvasNode>) {
  const f = { nodeId: id, type, data };
  const factor = { step: 0.05, min: 0, max: ADJUST_FACTOR_MAX };
  return (
    <NodeFrame nodeId={id} type={type}>
      <div className="step-fields" role="group" aria-label="Adjustments">
        <NumberField {...f} {...factor} field="brightness" label="Brightness (1 = as is)" />
        <NumberField {...f} {...factor} field="contrast" label="Contrast (1 = as is)" />
        <NumberField {...f} {...factor} field="saturation" label="Saturation (1 = as is)" />
        <NumberField {...f} field="hue" label="Hue (degrees)" min={-360} max={360} />
        <NumberField {...f} field="blur" label="Blur (sigma)" step={0.5} min={0} max={ADJUST_BLUR_MAX} />
        <CheckField nodeId={id} data={data} field="grayscale" label="Grayscale" />
        <CheckField nodeId={id} data={data} field="sepia" label="Sepia" />
        <CheckField nodeId={id} data={data} field="invert" label="Invert" />
      </div>
      <StepsRun nodeId={id} type={type} data={data} />
    </NodeFrame>
  );
}
