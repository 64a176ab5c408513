// The card every canvas node is drawn in: a title bar with the node's name ("Image 2", canvas/names.ts; the
// same name its xyflow wrapper gives screen readers) and a delete button (none when read-only), then the
// node's content.
import type { DragEvent, ReactNode } from 'react';
import { useEditor } from '../canvas/editor-context';
import { useNodeName } from '../canvas/names';

interface Props {
  nodeId: string;
  title: string;
  kind: 'upload' | 'generation';
  busy?: boolean;
  children: ReactNode;
  onFileDrop?: (files: File[]) => void;
}

const hasFiles = (event: DragEvent) => [...event.dataTransfer.types].includes('Files');

export function NodeFrame({ nodeId, title, kind, busy, children, onFileDrop }: Props) {
  const { removeNode, readOnly } = useEditor();
  const name = useNodeName(nodeId) ?? title;
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
    <section className={`canvas-node ${kind}${busy ? ' busy' : ''}`} {...drop}>
      <header className="canvas-node-title">
        <span>{name}</span>
        {!readOnly && (
          <button type="button" className="icon-button nodrag" aria-label={kind === 'upload' ? 'Delete image node' : 'Delete generation node'} title="Delete node" onClick={() => removeNode(nodeId)}>
            ×
          </button>
        )}
      </header>
      <div className="canvas-node-body">{children}</div>
    </section>
  );
}
