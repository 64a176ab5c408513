// What the web client knows of a node kind beyond src/kinds/ (the UI of a kind: ./index.tsx lists one line per
// kind), and the context through which a node's frame (components/node-frame.tsx) reads its own kind's entry, so
// that the frame and the node components never import the registry that imports them.
import type { NodeProps } from '@xyflow/react';
import { createContext, useContext, type ComponentType } from 'react';
import type { CanvasNode } from '../canvas/model';

export interface KindUi {
  /** The node's content (inside its frame, which draws the title, the delete button and the port handles). */
  component: ComponentType<NodeProps<CanvasNode>>;
  /** The word people read for one node of the kind: "Delete image node", "Add text node here", the "Text node" menu. */
  noun: string;
  /** The data a new node starts with besides its `type`: its kind's required fields (a text's `text`). */
  data?: Record<string, unknown>;
  /**
   * How a person adds one from the canvas's menus: `node` (the default) an empty node at the spot, `files` by
   * choosing files (an image node per file, "Add images here…"), `none` not from the menus.
   */
  add?: 'node' | 'files' | 'none';
  /** Items of its own on a node's context menu (one node chosen): e.g. the mask node's "Paint mask…". */
  menu?: (nodeId: string) => Array<{ label: string; onSelect: () => void }>;
}

/** What a node of a type no kind has is: drawn as an unknown node, whose content says so. */
export const UNKNOWN_UI: Omit<KindUi, 'component'> = { noun: 'unknown' };

export const KindUiContext = createContext<Omit<KindUi, 'component'>>(UNKNOWN_UI);

/** The UI entry of the kind of the node being drawn (inside a node component). */
export const useKindUi = () => useContext(KindUiContext);
