// The canvas's node components by type, for the editor and the read-only view. Each node in a boundary of
// its own: one that cannot be drawn does not take the canvas down.
import type { NodeTypes } from '@xyflow/react';
import { GenerationNode } from './generation-node';
import { withNodeBoundary } from './node-boundary';
import { UploadNode } from './upload-node';

export const nodeTypes: NodeTypes = { upload: withNodeBoundary(UploadNode, 'upload'), generation: withNodeBoundary(GenerationNode, 'generation') };
