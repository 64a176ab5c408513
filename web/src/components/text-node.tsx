// A text node (type `text`, src/kinds/text.ts): a text someone writes, edited live as a generation node's prompt
// is (prompt-field.tsx: one undo step per run of typing, at most the service's prompt limit). Its output feeds a
// generation node's prompt port, where it is joined to that node's own prompt when it runs. Read-only: the text only.
import type { NodeProps } from '@xyflow/react';
import { useEditor } from '../canvas/editor-context';
import type { CanvasNode } from '../canvas/model';
import { NodeFrame } from './node-frame';
import { PromptField } from './prompt-field';

export function TextNode({ id, type, data }: NodeProps<CanvasNode>) {
  const { setText, readOnly } = useEditor();
  return (
    <NodeFrame nodeId={id} type={type}>
      <PromptField
        label="Text"
        placeholder={readOnly ? 'No text' : 'Write a text; connect it to a generation node’s prompt'}
        value={typeof data.text === 'string' ? data.text : ''}
        readOnly={readOnly}
        onChange={(text, newRun) => setText(id, text, newRun)}
      />
    </NodeFrame>
  );
}
