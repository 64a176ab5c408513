// A node's connection handle that a keyboard and a finger can use as well as a mouse: besides dragging from it
// (xyflow), a click or a tap on an output and then on a generation node's input connects them (xyflow's
// connectOnClick), and in an editable canvas the handle is a button in the Tab order that Enter or Space
// clicks. Its name says whose handle it is ("Output of Image 2"). Read-only, it is a plain, unnamed dot.
import { Handle, Position } from '@xyflow/react';
import type { KeyboardEvent } from 'react';
import { useEditor } from '../canvas/editor-context';
import { useNodeName } from '../canvas/names';

interface Props {
  nodeId: string;
  type: 'source' | 'target';
  /** What it connects to, after the handle's name: e.g. "connect to a generation node". */
  hint: string;
}

export function ConnectHandle({ nodeId, type, hint }: Props) {
  const { readOnly } = useEditor();
  const name = useNodeName(nodeId);
  const position = type === 'source' ? Position.Right : Position.Left;
  if (readOnly) return <Handle type={type} position={position} />;
  const label = `${type === 'source' ? 'Output' : 'Input'}${name ? ` of ${name}` : ''}: ${hint}`;
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    event.preventDefault();
    event.stopPropagation(); // not also the node's own Enter (select)
    event.currentTarget.click();
  };
  return <Handle type={type} position={position} role="button" tabIndex={0} aria-label={label} title={label} onKeyDown={onKeyDown} />;
}
