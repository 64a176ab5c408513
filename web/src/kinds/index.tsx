// The web side of the node-kind registry (src/kinds/index.ts is the other): one line per kind, its `type` to its
// node component and what else only the page needs (./ui.ts says what). Adding a kind is its module in src/kinds/,
// its component in web/src/components/, a line in src/kinds/index.ts and a line here. The editor's node types,
// menus and new nodes read this; a kind with no line here does not compile.
import type { NodeTypes } from '@xyflow/react';
import { kindOf, NODE_KINDS, type NodeKind, type NodeType } from '../../../src/kinds/index.js';
import { AdjustNode } from '../components/adjust-node';
import { ComposeNode } from '../components/compose-node';
import { CropNode } from '../components/crop-node';
import { EditNode } from '../components/edit-node';
import { GenerationNode } from '../components/generation-node';
import { ListNode } from '../components/list-node';
import { MaskNode } from '../components/mask-node';
import { withNodeBoundary } from '../components/node-boundary';
import { RemoveBackgroundNode } from '../components/remove-background-node';
import { ResizeNode } from '../components/resize-node';
import { TextNode } from '../components/text-node';
import { UnknownNode } from '../components/unknown-node';
import { UploadNode } from '../components/upload-node';
import { UpscaleNode } from '../components/upscale-node';
import { UNKNOWN_UI, type KindUi } from './ui';
import { randomSeed } from '../canvas/marks';
import { openNodeEditor } from '../canvas/node-open';
import './kinds.css';

export const KIND_UI: Readonly<Record<NodeType, KindUi>> = {
  upload: { component: UploadNode, noun: 'image', add: 'files' },
  generation: { component: GenerationNode, noun: 'generation' },
  text: { component: TextNode, noun: 'text', data: { text: '' } },
  list: { component: ListNode, noun: 'list', data: { items: [] } },
  crop: { component: CropNode, noun: 'crop', data: { x: 0, y: 0, width: 512, height: 512 } },
  resize: { component: ResizeNode, noun: 'resize', data: { width: 512, fit: 'contain' } },
  adjust: { component: AdjustNode, noun: 'adjust' },
  mask: { component: MaskNode, noun: 'mask', menu: (nodeId) => [{ label: 'Paint mask…', onSelect: () => openNodeEditor(nodeId) }] },
  edit: { component: EditNode, noun: 'edit', data: { mode: 'inpaint' } },
  compose: { component: ComposeNode, noun: 'compose' },
  upscale: { component: UpscaleNode, noun: 'upscale' },
  'remove-background': { component: RemoveBackgroundNode, noun: 'background removal' },
};

/** A kind and its UI entry, in the registry's (menu) order. */
export const KINDS_WITH_UI: ReadonlyArray<{ kind: NodeKind<NodeType>; ui: KindUi }> = NODE_KINDS.map((kind) => ({ kind, ui: KIND_UI[kind.type] }));

/** The data a new node of `type` starts with besides its type: its kind's starting fields, and a seed drawn for it when its kind runs with one. */
export const newNodeData = (type: NodeType): Record<string, unknown> => ({ ...KIND_UI[type].data, ...(kindOf(type)?.seeded ? { seed: randomSeed() } : {}) });

/** The UI entry of a node's type; the unknown node's for a type no kind has. */
export const uiOf = (type: string | undefined): Omit<KindUi, 'component'> => (type !== undefined && Object.hasOwn(KIND_UI, type) ? KIND_UI[type as NodeType] : UNKNOWN_UI);

/** The canvas's node components by type, each in a boundary of its own; any other type (xyflow's `default`) is an unknown node. */
export const nodeTypes: NodeTypes = {
  ...Object.fromEntries(KINDS_WITH_UI.map(({ kind, ui }) => [kind.type, withNodeBoundary(ui)])),
  default: withNodeBoundary({ ...UNKNOWN_UI, component: UnknownNode }),
};
