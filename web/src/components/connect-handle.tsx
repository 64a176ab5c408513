// A node's connection handles, one per port of its kind (src/kinds/): inputs on the left, outputs on the right,
// each with its port's name as xyflow's handle id (an edge's `sourceHandle`/`targetHandle`), the default port first
// (an edge that names no handle, as SPEC's edges, is drawn at the first handle of its side). A side with several
// ports spreads them down the node and names each beside it. Each handle can be used by a keyboard and a finger as
// well as a mouse: besides dragging from it (xyflow), a click or a tap on an output and then on an input connects
// them (xyflow's connectOnClick), and in an editable canvas the handle is a button in the Tab order that Enter or
// Space clicks. Its name says whose port it is and what it takes: "Output of Image 2: connect to a generation
// node", "Input of Generate 1: connect images here" (a default port), "Text input of Generate 1: connect texts
// here". Read-only, it is a plain, unnamed dot.
import { Handle, Position } from '@xyflow/react';
import type { CSSProperties, KeyboardEvent } from 'react';
import { useEditor } from '../canvas/editor-context';
import { kindsFedBy, NODE_KINDS, type NodeKind, type Port } from '../canvas/kinds';
import { useNodeName } from '../canvas/names';

const article = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

/** What a port connects to, after the handle's name. */
function hintOf(port: Port, type: 'source' | 'target'): string {
  if (type === 'target') return `connect ${port.value}s here`;
  const kinds = kindsFedBy(port, NODE_KINDS).map((k) => k.type);
  if (kinds.length === 0) return 'nothing takes its value yet';
  return `connect to ${article(kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} or ${kinds[kinds.length - 1]}` : kinds[0])} node`;
}

/** Ports of one side, the default one first. */
const inOrder = (ports: readonly Port[]) => [...ports.filter((p) => p.default), ...ports.filter((p) => !p.default)];

/** The handles of a node of `kind`: one per input, then one per output. */
export function PortHandles({ nodeId, kind }: { nodeId: string; kind: NodeKind }) {
  return (
    <>
      {(['target', 'source'] as const).map((type) => {
        const ports = inOrder(type === 'target' ? kind.inputs : kind.outputs);
        return ports.map((port, i) => (
          <ConnectHandle
            key={`${type}:${port.name}`}
            nodeId={nodeId}
            type={type}
            port={port}
            named={ports.length > 1}
            sideWord={ports.filter((p) => p.value === port.value).length > 1 ? (port.label ?? port.name) : `${port.value[0].toUpperCase()}${port.value.slice(1)}`}
            style={ports.length > 1 ? { top: `${((i + 1) * 100) / (ports.length + 1)}%` } : undefined}
          />
        ));
      })}
    </>
  );
}

interface Props {
  nodeId: string;
  type: 'source' | 'target';
  port: Port;
  /** Whether the side has several ports: the handle shows its port's name beside it, and its name says which. */
  named: boolean;
  /** What names the port among the others of its side: its value ("Text"), or its own name when that is not enough. */
  sideWord: string;
  style?: CSSProperties;
}

function ConnectHandle({ nodeId, type, port, named, sideWord, style }: Props) {
  const { readOnly } = useEditor();
  const name = useNodeName(nodeId);
  const position = type === 'source' ? Position.Right : Position.Left;
  const word = port.label ?? port.name;
  const tag = named && <span className={`port-label ${type}`}>{word}</span>;
  if (readOnly) {
    return (
      <Handle type={type} id={port.name} position={position} style={style}>
        {tag}
      </Handle>
    );
  }
  const side = type === 'source' ? 'Output' : 'Input';
  // The default port is the node's input (or output); another one is named by what it takes ("Text input of
  // Generate 1"; by its own name when two on the side take the same).
  const label = `${named && !port.default ? `${sideWord} ${side.toLowerCase()}` : side}${name ? ` of ${name}` : ''}: ${hintOf(port, type)}`;
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    event.preventDefault();
    event.stopPropagation(); // not also the node's own Enter (select)
    event.currentTarget.click();
  };
  return (
    <Handle type={type} id={port.name} position={position} style={style} role="button" tabIndex={0} aria-label={label} title={label} onKeyDown={onKeyDown}>
      {tag}
    </Handle>
  );
}
