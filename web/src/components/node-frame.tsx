// The card every canvas node is drawn in: a title bar with the node's name ("Image 2", canvas/names.ts; the
// same name its xyflow wrapper gives screen readers) and a delete button (none when read-only), then the
// node's content, and the handles of its kind's ports (connect-handle.tsx; none for a kind this page does not know).
// A runnable node has its Run ▶ (run-button.tsx) as a tab on its top edge, after its name for the keyboard, and its
// body starts with its run state once it is in a run (run-state.tsx).
import type { DragEvent, ReactNode } from 'react';
import { useEditor } from '../canvas/editor-context';
import { kindOf } from '../canvas/kinds';
import { kindName, useNodeName } from '../canvas/names';
import { useKindUi } from '../kinds/ui';
import { PortHandles } from './connect-handle';
import { NodeRunButton } from './run-button';
import { RunState } from './run-state';
import { NodeMark } from './node-mark';

interface Props {
  nodeId: string;
  /** The node's type: its kind's (the frame's class, its handles, the word of its delete button). */
  type: string | undefined;
  busy?: boolean;
  children: ReactNode;
  onFileDrop?: (files: File[]) => void;
}

const hasFiles = (event: DragEvent) => [...event.dataTransfer.types].includes('Files');

export function NodeFrame({ nodeId, type, busy, children, onFileDrop }: Props) {
  const { removeNode, readOnly } = useEditor();
  const name = useNodeName(nodeId) ?? kindName(type);
  const kind = kindOf(type);
  const { noun } = useKindUi();
  const drop = onFileDrop && !readOnly && {
    onDragOver: (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      event.stopPropagation();
      event.dataTransfer.dropEffect = 'copy';
    },
    onDrop: (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      event.stopPropagation();
      onFileDrop([...event.dataTransfer.files]);
    },
  };
  return (
    <section className={`canvas-node ${kind ? kind.type : 'unknown'}${busy ? ' busy' : ''}`} {...drop}>
      <header className="canvas-node-title">
        <span>{name}</span>
        <NodeMark nodeId={nodeId} />
        <NodeRunButton nodeId={nodeId} type={type} />
        {!readOnly && (
          <button type="button" className="icon-button nodrag" aria-label={`Delete ${noun} node`} title="Delete node" onClick={() => removeNode(nodeId)}>
            ×
          </button>
        )}
      </header>
      <div className="canvas-node-body">
        <RunState nodeId={nodeId} />
        {children}
      </div>
      {kind && <PortHandles nodeId={nodeId} kind={kind} />}
    </section>
  );
}
