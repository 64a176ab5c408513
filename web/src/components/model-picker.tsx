// A generation node's model picker: "Default model" (no choice: the deployment's default runs) and every model the
// deployment runs (GET /api/models) with its price and whether it runs offline, the default marked; a choice the
// catalogue does not list stays shown, "(not available)". Under it, what the model a run uses accepts and costs,
// and why Generate cannot run with it (canvas/model-choice.ts). Disabled when read-only.
import { useId } from 'react';
import type { ImageModelInfo } from '../api/client';
import type { ModelCatalogue, ModelStatus } from '../canvas/model-choice';
import { formatUsd } from '../hooks/use-models';

interface Props {
  catalogue: ModelCatalogue;
  status: ModelStatus;
  readOnly?: boolean;
  /** The node's new choice; undefined: the default. */
  onChange: (model: string | undefined) => void;
}

function optionText(model: ImageModelInfo): string {
  let text = model.label;
  if (model.costPerImageUsd !== undefined) text += ` · ${formatUsd(model.costPerImageUsd)} / image`;
  if (model.offline) text += ' · offline';
  if (model.default) text += ' (default)';
  return text;
}

export function ModelPicker({ catalogue, status, readOnly, onChange }: Props) {
  const selectId = useId();
  const models = catalogue.state === 'loaded' ? catalogue.models : [];
  const fallback = models.find((m) => m.default);
  const { chosenId, model } = status;
  const listed = chosenId === undefined || models.some((m) => m.id === chosenId);

  const facts: string[] = [];
  if (model) {
    facts.push(`Up to ${model.maxInputs} input image${model.maxInputs === 1 ? '' : 's'}`);
    if (model.costPerImageUsd !== undefined) facts.push(`≈ ${formatUsd(model.costPerImageUsd)} per run`);
  }

  return (
    <div className="model-picker">
      {/* The select outside its label: the label's name is then "Model" alone, not with the chosen option's text. */}
      <div className="field">
        <label htmlFor={selectId}>Model</label>
        <select
          id={selectId}
          className="input nodrag"
          value={chosenId ?? ''}
          disabled={readOnly}
          aria-busy={catalogue.state === 'loading'}
          onChange={(event) => onChange(event.target.value === '' ? undefined : event.target.value)}
        >
          <option value="">{fallback ? `Default model (${fallback.label})` : 'Default model'}</option>
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {optionText(m)}
            </option>
          ))}
          {!listed && <option value={chosenId}>{status.unavailable ? `${chosenId} (not available)` : chosenId}</option>}
        </select>
      </div>
      {facts.length > 0 && <p className="muted small">{facts.join(' · ')}</p>}
      {status.blocked && <p className="node-warning small">{status.blocked}</p>}
    </div>
  );
}
