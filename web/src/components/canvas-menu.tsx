// The canvas's context menus (issue 19, point 1): on a node (or the selection it is part of) — Duplicate, Copy,
// Connect to new generation, Open image, Delete —; on empty canvas — Add generation node here, Add images here…,
// Paste, Select all, Fit view —; where a connection dragged from an output was let go on empty canvas — a new
// generation node there, connected —; and where one dragged back from a generation node's input was — images, or a
// generation node, there, feeding it. Right-click opens them (Shift+F10 or the menu key on a focused node too).
import type { CanvasNode } from '../canvas/model';
import { columnSize, NODE_SIZE, type XY } from '../canvas/placement';
import { MOD } from '../canvas/shortcuts';
import type { CanvasCommands } from '../hooks/use-canvas-commands';
import type { Placement } from '../hooks/use-placement';
import { ContextMenu, type MenuItem } from './context-menu';
import { isWebUrl } from './node-image';

export type CanvasMenuState =
  | { kind: 'node'; nodeId: string; at: XY }
  | { kind: 'pane'; at: XY }
  | { kind: 'connection'; fromNodeId: string; at: XY }
  | { kind: 'input'; toNodeId: string; at: XY }
  | null;

interface Props {
  menu: NonNullable<CanvasMenuState>;
  nodes: CanvasNode[];
  commands: CanvasCommands;
  placement: Placement;
  /** Turns a client point into a flow position. */
  toFlow: (client: XY) => XY;
  /** Uploads files as new image nodes, their column's top-left at `at` (flow), each feeding the node `feeds` if given. */
  addImages: (files: File[], at: XY, feeds?: string) => void;
  onClose: () => void;
}

/** Asks for image files with the browser's file chooser (a menu item's click is the user's gesture it needs). */
function chooseImages(onFiles: (files: File[]) => void): void {
  const input = document.createElement('input');
  input.type = 'file';
  input.accept = 'image/*';
  input.multiple = true;
  input.addEventListener('change', () => onFiles([...(input.files ?? [])]), { once: true });
  input.click();
}

export function CanvasMenu({ menu, nodes, commands, placement, toFlow, addImages, onClose }: Props) {
  const point = toFlow(menu.at);
  /** Files as a column of image nodes centred at `centre` (flow), moved only as far as placement must; each feeding `feeds`. */
  const imagesAt = (files: File[], centre: XY, feeds?: string) => {
    if (files.length > 0) addImages(files, placement.place(columnSize(files.length), centre), feeds);
  };
  const addImagesItem = (centre: XY, feeds?: string): MenuItem => ({ label: 'Add images here…', onSelect: () => chooseImages((files) => imagesAt(files, centre, feeds)) });
  let label: string;
  let items: MenuItem[];
  if (menu.kind === 'node') {
    const selected = commands.selectedIds();
    const ids = selected.includes(menu.nodeId) ? selected : [menu.nodeId];
    const node = nodes.find((n) => n.id === menu.nodeId);
    const image = ids.length === 1 && node?.data.image && isWebUrl(node.data.image) ? node.data.image : undefined;
    label = ids.length > 1 ? `${ids.length} nodes` : node?.type === 'generation' ? 'Generation node' : 'Image node';
    items = [
      { label: 'Duplicate', shortcut: `${MOD}+D`, onSelect: () => commands.duplicate(ids) },
      { label: 'Copy', shortcut: `${MOD}+C`, onSelect: () => commands.copyToClipboard(ids) },
      { label: 'Connect to new generation', onSelect: () => commands.connectToNewGeneration(ids) },
      ...(image ? [{ label: 'Open image', onSelect: () => void window.open(image, '_blank', 'noopener') }] : []),
      { label: ids.length > 1 ? `Delete ${ids.length} nodes` : 'Delete', shortcut: 'Del', onSelect: () => commands.remove(ids) },
    ];
  } else if (menu.kind === 'pane') {
    label = 'Canvas';
    items = [
      { label: 'Add generation node here', onSelect: () => commands.addGeneration(point) },
      addImagesItem(point),
      {
        label: 'Paste',
        shortcut: `${MOD}+V`,
        // Images on the clipboard become image nodes there, as Ctrl/Cmd+V does; else copied nodes are pasted.
        onSelect: () => void commands.pasteFromClipboard(point, (files) => imagesAt(files, point)),
      },
      { label: 'Select all', shortcut: `${MOD}+A`, disabled: nodes.length === 0, onSelect: commands.selectAll },
      { label: 'Fit view', shortcut: 'Shift+1', disabled: nodes.length === 0, onSelect: commands.fit },
    ];
  } else if (menu.kind === 'input') {
    label = 'New input';
    // The new nodes' outputs (their right edges, halfway down) where the connection was let go.
    const toNode = menu.toNodeId;
    items = [
      addImagesItem({ x: point.x - NODE_SIZE.upload.width / 2, y: point.y }, toNode),
      { label: 'Add generation node here', onSelect: () => commands.addGeneration({ x: point.x - NODE_SIZE.generation.width / 2, y: point.y }, [], [toNode]) },
    ];
  } else {
    label = 'New connection';
    // The new node's input (its left edge, halfway down) where the connection was let go.
    const at = { x: point.x + NODE_SIZE.generation.width / 2, y: point.y };
    items = [{ label: 'Add generation node here', onSelect: () => commands.addGeneration(at, [menu.fromNodeId]) }];
  }
  return <ContextMenu at={menu.at} label={label} items={items} onClose={onClose} />;
}
