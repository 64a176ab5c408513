// The kinds as GET /api/node-kinds shows them (docs/api.md "Node kinds"): what an API client or an agent needs to
// build valid nodes and edges — each kind's type, label, version, ports, whether it runs, and its data as JSON
// Schema under the service's limits.
import { z } from 'zod';
import { NODE_KINDS, kindData, type KindLimits, type NodeKind, type Port, type PortValue } from './index.js';

export interface PortDescription {
  name: string;
  label?: string;
  value: PortValue;
  list: boolean;
  default: boolean;
}

export interface KindDescription {
  type: string;
  label: string;
  version: number;
  inputs: PortDescription[];
  outputs: PortDescription[];
  /** The job's task kind for a kind that runs; null for one that does not. */
  task: string | null;
  /** JSON Schema (draft 2020-12) of the node's `data`. */
  data: Record<string, unknown>;
}

const port = (p: Port): PortDescription => ({ name: p.name, ...(p.label ? { label: p.label } : {}), value: p.value, list: p.list, default: p.default === true });

/** Every kind, in the registry's order. */
export function describeKinds(limits: KindLimits): KindDescription[] {
  const data = kindData(limits);
  return (NODE_KINDS as readonly NodeKind[]).map((kind) => ({
    type: kind.type,
    label: kind.label,
    version: kind.version,
    inputs: kind.inputs.map(port),
    outputs: kind.outputs.map(port),
    task: kind.task?.kind ?? null,
    // Input form: keys a kind does not name are dropped by a save, not refused.
    data: z.toJSONSchema(data.get(kind.type)!.schema, { io: 'input' }),
  }));
}
