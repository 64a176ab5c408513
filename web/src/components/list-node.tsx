// A list node (type `list`, src/kinds/list.ts): texts typed one per line, or the images connected to it. The nodes
// it feeds run once per item (src/kinds/graph.ts "fan-out"). The box holds `data.items` joined by newlines and
// writes each line back as an item, as a text node writes its text (one undo step per run of typing); blank lines
// are kept as typed but are no items. At most LIST_MAX_ITEMS lines, each at most the service's prompt limit.
import { useStore, type NodeProps } from '@xyflow/react';
import { useId, useRef } from 'react';
import { LIST_MAX_ITEMS, listItems } from '../../../src/kinds/list.js';
import { useEditor } from '../canvas/editor-context';
import { cutText, DEFAULT_CANVAS_LIMITS } from '../canvas/live-limits';
import type { CanvasNode } from '../canvas/model';
import { useClientConfig } from '../hooks/use-client-config';
import { NodeFrame } from './node-frame';

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

export function ListNode({ id, type, data }: NodeProps<CanvasNode>) {
  const { setFields, readOnly } = useEditor();
  const boxId = useId();
  const countId = useId();
  const max = useClientConfig()?.canvas?.promptMaxChars ?? DEFAULT_CANVAS_LIMITS.promptMaxChars;
  const lines = Array.isArray(data.items) ? data.items.filter((item): item is string => typeof item === 'string') : [];
  const items = listItems(lines).length;
  const images = useStore((s) => s.edges.reduce((n, e) => n + (e.target === id ? 1 : 0), 0));
  /** The next change starts a new undo step. */
  const newRun = useRef(true);
  return (
    <NodeFrame nodeId={id} type={type}>
      <label className="field" htmlFor={boxId}>
        <span>Items, one per line</span>
        <textarea
          id={boxId}
          className="input nodrag nowheel"
          rows={5}
          placeholder={readOnly ? 'No items' : 'One prompt per line; each line runs the nodes it feeds once'}
          value={lines.join('\n')}
          readOnly={readOnly}
          aria-describedby={countId}
          data-canvas-undo=""
          onFocus={() => (newRun.current = true)}
          onBlur={() => (newRun.current = true)}
          onChange={(event) => {
            const next = event.target.value.split('\n').slice(0, LIST_MAX_ITEMS).map((line) => cutText(line, max));
            setFields(id, { items: next }, { newRun: newRun.current });
            newRun.current = false;
          }}
        />
      </label>
      <p id={countId} className="muted small" data-testid="list-count" aria-live="polite">
        {plural(items, 'item')}
        {images > 0 ? `, ${plural(images, 'image')} connected` : ''}
        {lines.length >= LIST_MAX_ITEMS ? ` (at most ${LIST_MAX_ITEMS} lines)` : ''}
      </p>
    </NodeFrame>
  );
}
