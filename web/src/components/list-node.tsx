// A list node (type `list`, src/kinds/list.ts; issue 35 point 4): text items typed one per line (`data.items`), or
// the images connected into it; a node it feeds runs once per item (its results are its variants, in item order).
// The box is bound to the live data as a text node's is (one undo step per run of typing); a blank line is no item.
// Read-only: the items only.
import { useNodeConnections, type NodeProps } from '@xyflow/react';
import { useEffect, useId, useRef, useState } from 'react';
import { useEditor } from '../canvas/editor-context';
import { itemsOf, sameItems, storedItems, textOf } from '../canvas/list-items';
import type { CanvasNode } from '../canvas/model';
import { NodeFrame } from './node-frame';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function ListNode({ id, type, data }: NodeProps<CanvasNode>) {
  const { setFields, readOnly } = useEditor();
  const boxId = useId();
  const summaryId = useId();
  const items = storedItems(data.items);
  const stored = textOf(items);
  const [draft, setDraft] = useState(stored);
  // Another editor's change (or undo) shows here, unless it is what the box already means (a blank line being typed).
  useEffect(() => setDraft((d) => (sameItems(itemsOf(d), itemsOf(stored)) ? d : stored)), [stored]);
  const newRun = useRef(true);
  const images = useNodeConnections({ handleType: 'target' }).length;

  return (
    <NodeFrame nodeId={id} type={type}>
      <label className="field" htmlFor={boxId}>
        <span>Items, one per line</span>
        <textarea
          id={boxId}
          className="input nodrag nowheel"
          rows={5}
          placeholder={readOnly ? 'No items' : 'One prompt (or text) per line'}
          value={draft}
          readOnly={readOnly}
          aria-describedby={summaryId}
          data-canvas-undo=""
          onFocus={() => (newRun.current = true)}
          onBlur={() => (newRun.current = true)}
          onChange={(event) => {
            const text = event.target.value;
            setDraft(text);
            const next = itemsOf(text);
            if (!sameItems(next, items)) setFields(id, { items: next }, { newRun: newRun.current });
            newRun.current = false;
          }}
        />
      </label>
      <p className="muted small" id={summaryId}>
        {images > 0 ? `${plural(images, 'image')} connected` : plural(items.length, 'item')}: a node it feeds runs once for each.
      </p>
    </NodeFrame>
  );
}
