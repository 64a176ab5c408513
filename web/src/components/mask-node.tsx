// A mask node (type `mask`, src/kinds/mask.ts; issue 36 point 1): the image wired into its input (as StepsRun reads
// it) with the node's mask (`data.mask`) over it in translucent red, or what is missing in words; "Paint mask" (or
// Enter on the focused node) opens the full-size editor (./mask-editor.tsx), read-only for a viewer. Saving uploads
// the mask as a PNG through the same upload route as images and sets `data.mask` to its address in one live change;
// a mask with nothing painted is saved as none (`data.mask` removed).
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNodeConnections, useNodesData, type NodeProps } from '@xyflow/react';
import { uploadImage } from '../api/upload';
import { useEditor } from '../canvas/editor-context';
import { kindOf, portOf } from '../canvas/kinds';
import { useOpenNodeEditor } from '../canvas/node-open';
import type { CanvasNode } from '../canvas/model';
import { MaskEditor } from './mask-editor';
import { NodeFrame } from './node-frame';
import { isWebUrl } from './node-image';
import './mask-editor.css';

/** The image wired into a node's default (image) input, when it has one to show. */
function useInputImage(type: string): { wired: boolean; image: string | undefined } {
  const into = useNodeConnections({ handleType: 'target' });
  const inputs = kindOf(type)?.inputs ?? [];
  const port = portOf(inputs, undefined);
  const wired = into.filter((c) => portOf(inputs, c.targetHandle) === port);
  const sources = useNodesData<CanvasNode>(wired.slice(0, 1).map((c) => c.source));
  const image = sources[0]?.data.image;
  return { wired: wired.length > 0, image: typeof image === 'string' && isWebUrl(image) ? image : undefined };
}

export function MaskNode({ id, type, data }: NodeProps<CanvasNode>) {
  const { setFields, readOnly } = useEditor();
  const input = useInputImage(type);
  const mask = typeof data.mask === 'string' && isWebUrl(data.mask) ? data.mask : undefined;
  const [open, setOpen] = useState(false);
  const [savedEmpty, setSavedEmpty] = useState(false);
  const body = useRef<HTMLDivElement>(null);
  const canOpen = input.image !== undefined;
  useOpenNodeEditor(id, canOpen, useCallback(() => setOpen(true), [])); // the node's context menu: Paint mask…

  // Enter on the focused node (xyflow's wrapper, which has the focus) opens the editor.
  useEffect(() => {
    const wrapper = body.current?.closest<HTMLElement>('.react-flow__node');
    if (!wrapper || !canOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Enter' || event.target !== wrapper || event.repeat) return;
      event.preventDefault(); // not also a press of the button the dialog focuses
      setOpen(true);
    };
    wrapper.addEventListener('keydown', onKey);
    return () => wrapper.removeEventListener('keydown', onKey);
  }, [canOpen]);

  const save = async (png: Blob | null) => {
    if (!png) {
      setFields(id, { mask: undefined });
      setSavedEmpty(true);
      return;
    }
    const { url } = await uploadImage(new File([png], 'mask.png', { type: 'image/png' }), () => {});
    setFields(id, { mask: url });
    setSavedEmpty(false);
  };

  const note = !input.wired
    ? 'Connect an image'
    : !input.image
      ? 'Wait for the connected image'
      : mask
        ? undefined
        : savedEmpty
          ? 'Nothing painted: an edit needs a mask'
          : 'No mask painted yet';
  return (
    <NodeFrame nodeId={id} type={type}>
      <div ref={body} className="mask-node-body">
        {input.image && (
          <div className="mask-preview" role="img" aria-label={mask ? 'The input image with its mask in red' : 'The input image'}>
            <img src={input.image} alt="" draggable={false} decoding="async" />
            {mask && <div className="mask-tint" data-mask={mask} style={{ maskImage: `url("${encodeURI(mask)}")` }} />}
          </div>
        )}
        {note && (
          <p className="muted small" role="status">
            {note}
          </p>
        )}
        {data.mask !== undefined && !mask && <p className="node-error">This mask has an address that cannot be shown.</p>}
        <button type="button" className="button small nodrag" disabled={!canOpen} onClick={() => setOpen(true)}>
          {readOnly ? 'View mask' : 'Paint mask'}
        </button>
      </div>
      {open && input.image && <MaskEditor image={input.image} mask={mask} readOnly={readOnly} onSave={save} onClose={() => setOpen(false)} />}
    </NodeFrame>
  );
}
