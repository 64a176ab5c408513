// The model of a node whose kind runs a model of one role (upscale, remove-background: its `task.models.role`,
// src/kinds/): only the models this deployment runs (GET /api/models) whose `does` has the role, each with its price
// and whether it runs offline; the kind's default first ("Default: …"), or "Choose a model" when the role has none
// (remove-background). A choice the catalogue does not list stays shown, "(not available)". When the deployment runs
// no model of the role, the node says so and which keys would add one (src/kinds/model-roles.ts). Disabled when
// read-only.
import { useId } from 'react';
import type { ImageModelInfo } from '../api/client';
import { ROLE_KEYS, ROLE_NOUNS } from '../../../src/kinds/model-roles.js';
import { useEditor } from '../canvas/editor-context';
import { kindOf } from '../canvas/kinds';
import { chosenModel, withRole } from '../canvas/model-choice';
import { formatUsd, useModels } from '../hooks/use-models';

function optionText(model: ImageModelInfo): string {
  let text = model.label;
  if (model.costPerImageUsd !== undefined) text += ` · ${formatUsd(model.costPerImageUsd)} / image`;
  if (model.offline) text += ' · offline';
  return text;
}

/** Why a node of the role cannot run here: no model of it is configured (and the keys that add one). */
export function notConfigured(role: keyof typeof ROLE_NOUNS): string {
  const keys = ROLE_KEYS[role];
  return `No ${ROLE_NOUNS[role].replace(/^an? /, '')} is configured${keys ? `: set ${keys}` : ''}`;
}

export function RoleModelPicker({ nodeId, type, model }: { nodeId: string; type: string; model: unknown }) {
  const { setModel, readOnly } = useEditor();
  const selectId = useId();
  const catalogue = useModels();
  const role = kindOf(type)?.task?.models?.role;
  const defaultId = kindOf(type)?.task?.models?.default;
  if (!role) return null;
  const offered = withRole(catalogue, role);
  const models = offered.state === 'loaded' ? offered.models : [];
  const chosenId = chosenModel(model);
  const used = models.find((m) => m.id === (chosenId ?? defaultId));
  const listed = chosenId === undefined || models.some((m) => m.id === chosenId);
  const none = catalogue.state === 'loaded' && models.length === 0;
  const defaultModel = defaultId === undefined ? undefined : models.find((m) => m.id === defaultId);

  let warning: string | undefined;
  if (none) warning = notConfigured(role);
  else if (catalogue.state === 'loaded' && chosenId !== undefined && !listed) warning = `“${chosenId}” is not a model this service runs: choose another`;
  else if (catalogue.state === 'loaded' && chosenId === undefined && defaultId === undefined) warning = `Choose ${ROLE_NOUNS[role]} to run this node`;

  return (
    <div className="model-picker">
      <div className="field">
        <label htmlFor={selectId}>Model</label>
        <select
          id={selectId}
          className="input nodrag"
          value={chosenId ?? ''}
          disabled={readOnly || none}
          aria-busy={catalogue.state === 'loading'}
          onChange={(event) => setModel(nodeId, event.target.value === '' ? undefined : event.target.value)}
        >
          <option value="">{defaultId === undefined ? 'Choose a model' : `Default: ${defaultModel?.label ?? defaultId}`}</option>
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {optionText(m)}
            </option>
          ))}
          {!listed && <option value={chosenId}>{catalogue.state === 'loaded' ? `${chosenId} (not available)` : chosenId}</option>}
        </select>
      </div>
      {used?.costPerImageUsd !== undefined && <p className="muted small">≈ {formatUsd(used.costPerImageUsd)} per run</p>}
      {warning && (
        <p className="node-warning small" role="status">
          {warning}
        </p>
      )}
    </div>
  );
}
