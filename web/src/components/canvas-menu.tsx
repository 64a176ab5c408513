// The canvas's context menus (issue 19, point 1): on a node (or the selection it is part of) — Duplicate, Copy,
// Connect to new generation, Open image, Delete —; on empty canvas — a node of every kind (web/src/kinds/: "Add
// generation node here", "Add text node here", images by "Add images here…"), Paste, Select all, Fit view —; where
// a connection dragged from an output was let go on empty canvas — a new node of each kind with an input that
// output fits, connected —; and where one dragged back from an input was — images, or a node of each kind with an
// output that fits it, there, feeding it. Right-click opens them (Shift+F10 or the menu key on a focused node too).
// Tidy up (the selection, or the whole canvas) is on the canvas's menu and on the selection's, whose "Align and
// distribute…" opens a menu of those (./arrange-items.ts).
import { kindOf, portOf, type NodeType } from '../canvas/kinds';
import type { CanvasNode } from '../canvas/model';
import { gridSize, nodeRect, sizeOf, type XY } from '../canvas/placement';
import { MOD } from '../canvas/shortcuts';
import { KINDS_WITH_UI, uiOf } from '../kinds';
import { fits } from '../../../src/kinds/index.js';
import type { CanvasCommands } from '../hooks/use-canvas-commands';
import type { Placement } from '../hooks/use-placement';
import type { Arrangement } from '../hooks/use-arrange';
import { arrangeItems } from './arrange-items';
import { ContextMenu, type MenuItem } from './context-menu';
import { isWebUrl } from './node-image';
import { isRunnableType } from '../canvas/runs';
import { useRunsContext } from '../hooks/use-runs';
import { nodeRunActions } from './run-button';

export type CanvasMenuState =
  | { kind: 'node'; nodeId: string; at: XY }
  | { kind: 'pane'; at: XY }
  | { kind: 'connection'; fromNodeId: string; handle: string | null; at: XY }
  | { kind: 'input'; toNodeId: string; handle: string | null; at: XY }
  | { kind: 'arrange'; ids: string[]; at: XY }
  | null;

interface Props {
  menu: NonNullable<CanvasMenuState>;
  nodes: CanvasNode[];
  commands: CanvasCommands;
  placement: Placement;
  /** Turns a client point into a flow position. */
  toFlow: (client: XY) => XY;
  /** Uploads files as new image nodes, their grid's top-left at `at` (flow), each feeding the node `feeds` if given. */
  addImages: (files: File[], at: XY, feeds?: string) => void;
  onClose: () => void;
  /** Tidies up, aligns or distributes nodes (default: the selection; Tidy up: else the whole canvas). */
  arrange?: (how: Arrangement, ids?: string[]) => void;
  /** Opens another menu in its place (Align and distribute…). */
  openMenu?: (menu: CanvasMenuState) => void;
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

export function CanvasMenu({ menu, nodes, commands, placement, toFlow, addImages, onClose, arrange, openMenu }: Props) {
  const point = toFlow(menu.at);
  const runs = useRunsContext();
  /** Files as a grid of image nodes centred at `centre` (flow), moved only as far as placement must; each feeding `feeds` (left of it). */
  const imagesAt = (files: File[], centre: XY, feeds?: string) => {
    const fed = feeds === undefined ? undefined : nodes.find((n) => n.id === feeds);
    if (files.length > 0) addImages(files, placement.place(gridSize(files.length), centre, fed ? { maxX: nodeRect(fed).x - 80 } : {}), feeds);
  };
  const addImagesItem = (centre: XY, feeds?: string): MenuItem => ({ label: 'Add images here…', onSelect: () => chooseImages((files) => imagesAt(files, centre, feeds)) });
  /** The items adding a node of each kind `offered` (in the registry's order), centred at `centre(type)`. */
  const addItems = (offered: (type: NodeType) => boolean, centre: (type: NodeType) => XY, add: (type: NodeType, at: XY) => void, feeds?: string): MenuItem[] =>
    KINDS_WITH_UI.filter(({ kind, ui }) => ui.add !== 'none' && offered(kind.type)).map(({ kind, ui }) =>
      ui.add === 'files' ? addImagesItem(centre(kind.type), feeds) : { label: `Add ${ui.noun} node here`, onSelect: () => add(kind.type, centre(kind.type)) },
    );
  let label: string;
  let items: MenuItem[];
  if (menu.kind === 'node') {
    const selected = commands.selectedIds();
    const ids = selected.includes(menu.nodeId) ? selected : [menu.nodeId];
    const node = nodes.find((n) => n.id === menu.nodeId);
    const image = ids.length === 1 && node?.data.image && isWebUrl(node.data.image) ? node.data.image : undefined;
    const noun = uiOf(node?.type).noun;
    label = ids.length > 1 ? `${ids.length} nodes` : `${noun[0].toUpperCase()}${noun.slice(1)} node`;
    items = [
      { label: 'Duplicate', shortcut: `${MOD}+D`, onSelect: () => commands.duplicate(ids) },
      { label: 'Copy', shortcut: `${MOD}+C`, onSelect: () => commands.copyToClipboard(ids) },
      { label: 'Connect to new generation', onSelect: () => commands.connectToNewGeneration(ids) },
      // Runs (issue 35): one runnable node's Run, Run from here, Run again; a selection's Run selection.
      ...(runs && ids.length === 1 && isRunnableType(node?.type) ? nodeRunActions(runs, menu.nodeId, node?.type, { withRun: true }) : []),
      ...(runs && ids.length > 1 && ids.some((id) => isRunnableType(nodes.find((n) => n.id === id)?.type)) ? [{ label: 'Run selection', onSelect: () => runs.start('selection', ids) }] : []),
      ...(arrange && openMenu && ids.length > 1
        ? [
            { label: 'Tidy up', onSelect: () => arrange('tidy', ids) },
            { label: 'Align and distribute…', onSelect: () => openMenu({ kind: 'arrange', ids, at: { ...menu.at } }) },
          ]
        : []),
      ...(ids.length === 1 ? (uiOf(node?.type).menu?.(menu.nodeId) ?? []) : []),
      ...(image ? [{ label: 'Open image', onSelect: () => void window.open(image, '_blank', 'noopener') }] : []),
      { label: ids.length > 1 ? `Delete ${ids.length} nodes` : 'Delete', shortcut: 'Del', onSelect: () => commands.remove(ids) },
    ];
  } else if (menu.kind === 'pane') {
    label = 'Canvas';
    items = [
      ...addItems(
        () => true,
        () => point,
        (type, at) => commands.addNode(type, at),
      ),
      {
        label: 'Paste',
        shortcut: `${MOD}+V`,
        // Images on the clipboard become image nodes there, as Ctrl/Cmd+V does; else copied nodes are pasted.
        onSelect: () => void commands.pasteFromClipboard(point, (files) => imagesAt(files, point)),
      },
      { label: 'Select all', shortcut: `${MOD}+A`, disabled: nodes.length === 0, onSelect: commands.selectAll },
      ...(arrange ? [{ label: 'Tidy up', disabled: nodes.length < 2, onSelect: () => arrange('tidy') }] : []),
      { label: 'Fit view', shortcut: 'Shift+1', disabled: nodes.length === 0, onSelect: commands.fit },
    ];
  } else if (menu.kind === 'arrange') {
    label = 'Align and distribute';
    items = arrange ? arrangeItems(menu.ids, arrange) : [];
  } else if (menu.kind === 'input') {
    label = 'New input';
    // Kinds with an output the input fits; the new nodes' outputs (their right edges, halfway down) where the
    // connection was let go.
    const { toNodeId, handle } = menu;
    const input = portOf(kindOf(nodes.find((n) => n.id === toNodeId)?.type)?.inputs ?? [], handle);
    items = addItems(
      (type) => !!input && (kindOf(type)?.outputs.some((p) => fits(p, input)) ?? false),
      (type) => ({ x: point.x - sizeOf(type).width / 2, y: point.y }),
      (type, at) => commands.addNode(type, at, [], [{ nodeId: toNodeId, handle }]),
      toNodeId,
    );
  } else {
    label = 'New connection';
    // Kinds with an input the output fits; the new node's input (its left edge, halfway down) where the connection
    // was let go.
    const { fromNodeId, handle } = menu;
    const output = portOf(kindOf(nodes.find((n) => n.id === fromNodeId)?.type)?.outputs ?? [], handle);
    items = addItems(
      (type) => !!output && (kindOf(type)?.inputs.some((p) => fits(output, p)) ?? false),
      (type) => ({ x: point.x + sizeOf(type).width / 2, y: point.y }),
      (type, at) => commands.addNode(type, at, [{ nodeId: fromNodeId, handle }]),
    );
  }
  return <ContextMenu at={menu.at} label={label} items={items} onClose={onClose} />;
}
