// An image node (type `upload`): pick, drop or paste a file; shows its progress, the image and a Download link
// (a refused or failed file is said in the canvas's upload tray, components/upload-tray.tsx). Its output (its
// kind's port, drawn by the frame) feeds generation nodes. Read-only: the image and Download only.
import type { NodeProps } from '@xyflow/react';
import { useId } from 'react';
import { useEditor, useNodeActivity } from '../canvas/editor-context';
import type { CanvasNode } from '../canvas/model';
import { NodeFrame } from './node-frame';
import { DownloadLink, NodeImage } from './node-image';
import { ProgressBar } from './progress-bar';

export function UploadNode({ id, type, data }: NodeProps<CanvasNode>) {
  const { uploadFiles, readOnly } = useEditor();
  const activity = useNodeActivity(id);
  const inputId = useId();
  const uploading = activity.uploadProgress !== undefined;

  return (
    <NodeFrame nodeId={id} type={type} busy={uploading} onFileDrop={(files) => uploadFiles(files, { nodeId: id, source: 'drop' })}>
      {data.image ? (
        <NodeImage src={data.image} alt="Uploaded image" />
      ) : (
        <div className="drop-zone">{readOnly ? 'No image yet.' : uploading ? 'Uploading…' : 'Drop an image here, or choose a file.'}</div>
      )}
      {uploading && <ProgressBar value={activity.uploadProgress!} label="Uploading" />}
      <div className="node-actions">
        {!readOnly && (
          <label className="button small file-button nodrag" htmlFor={inputId}>
            {data.image ? 'Replace image' : 'Choose image'}
            <input
              id={inputId}
              className="visually-hidden"
              type="file"
              accept="image/*"
              disabled={uploading}
              onChange={(event) => {
                const files = [...(event.target.files ?? [])];
                event.target.value = '';
                uploadFiles(files, { nodeId: id, source: 'file-picker' });
              }}
            />
          </label>
        )}
        {data.image && <DownloadLink src={data.image} label="Download image" />}
      </div>
    </NodeFrame>
  );
}
